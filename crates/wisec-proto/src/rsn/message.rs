//! EAPOL-Key messages of the 4-way and group key handshakes (IEEE Std
//! 802.11-2020, 12.7.2, 12.7.6, 12.7.7): which message a frame is, its
//! MIC check (the only way from [`UnverifiedKeyFrame`] to
//! [`VerifiedKeyFrame`]), Key Data decryption and the KDEs and elements
//! the Key Data carries, and the sender's side: building and signing a
//! frame, sealing Key Data.

use super::HandshakeError;
use wisec_crypto::eapol_mic::{self, MicAlgorithm};
use wisec_crypto::keywrap::{self, Gtk, Igtk};
use wisec_wire::eapol::{
    KdeType, KeyDataItem, KeyDataIter, KeyDescriptor, KeyDescriptorVersion, KeyFrame, KeyFrameRepr,
    KeyInfo, MAX_MIC_LEN,
};
use wisec_wire::element::{Element, ElementId, OUI_MICROSOFT};
use wisec_wire::Kde;
use zeroize::Zeroize;

/// Which handshake message an EAPOL-Key frame is, from its Key
/// Information (12.7.6.2 to 12.7.6.5, 12.7.7.2, 12.7.7.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MessageKind {
    /// 4-way message 1: pairwise, Key Ack, no MIC.
    FourWay1,
    /// 4-way message 2: pairwise, MIC, no Key Ack, SNonce and Key Data.
    FourWay2,
    /// 4-way message 3: pairwise, Key Ack, MIC, Install.
    FourWay3,
    /// 4-way message 4: pairwise, MIC, no Key Ack; Secure in RSN, or (WPA)
    /// no Key Data and a zero nonce.
    FourWay4,
    /// Group key message 1: group, Key Ack, MIC.
    Group1,
    /// Group key message 2: group, MIC, no Key Ack.
    Group2,
    /// A request from the supplicant (Request bit: rekey, or a MIC
    /// failure report with the Error bit).
    Request,
    /// A combination no handshake message has.
    Other,
}

/// Classifies an EAPOL-Key frame by its Key Information (and, to tell a
/// WPA message 4 from message 2, its Key Data and nonce). The frame is
/// not trusted by this: classification only routes it to a check.
pub fn classify<T: AsRef<[u8]>>(f: &KeyFrame<T>) -> MessageKind {
    let ki = f.key_info();
    if ki.request() {
        return MessageKind::Request;
    }
    if ki.smk_message() {
        return MessageKind::Other;
    }
    match (ki.pairwise(), ki.key_ack(), ki.key_mic()) {
        (true, true, false) if !ki.install() => MessageKind::FourWay1,
        (true, true, true) if ki.install() => MessageKind::FourWay3,
        (true, false, true) if !ki.install() => {
            if ki.secure() || (f.key_data_len() == 0 && f.key_nonce() == [0; 32]) {
                MessageKind::FourWay4
            } else {
                MessageKind::FourWay2
            }
        }
        (false, true, true) if !ki.install() => MessageKind::Group1,
        (false, false, true) if !ki.install() => MessageKind::Group2,
        _ => MessageKind::Other,
    }
}

/// A received EAPOL-Key frame whose MIC has not been checked. Its fields
/// may be read (a nonce is needed to derive the key that checks the MIC),
/// but nothing in it is trusted.
#[derive(Debug, Clone, Copy)]
pub struct UnverifiedKeyFrame<'a> {
    frame: KeyFrame<&'a [u8]>,
    kind: MessageKind,
}

impl<'a> UnverifiedKeyFrame<'a> {
    /// Parses `pdu`, an EAPOL PDU from its header on, with a Key MIC of
    /// `mic_len` octets (12.7.3). `Malformed` unless it is a whole
    /// EAPOL-Key frame of descriptor type 2 or 254.
    pub fn parse(pdu: &'a [u8], mic_len: usize) -> Result<UnverifiedKeyFrame<'a>, HandshakeError> {
        let frame = KeyFrame::new_checked(pdu, mic_len)?;
        let kind = classify(&frame);
        Ok(UnverifiedKeyFrame { frame, kind })
    }

    /// The message this frame claims to be.
    pub fn kind(&self) -> MessageKind {
        self.kind
    }

    /// The untrusted view.
    pub fn frame(&self) -> &KeyFrame<&'a [u8]> {
        &self.frame
    }

    /// Checks the Key MIC with `kck` (12.7.2 h), comparing in constant
    /// time. A frame without the Key MIC bit is `UnexpectedMessage`, a
    /// wrong MIC `InvalidMic`.
    pub fn verify_mic(
        self,
        alg: MicAlgorithm,
        kck: &[u8],
    ) -> Result<VerifiedKeyFrame<'a>, HandshakeError> {
        if !self.frame.key_info().key_mic() || self.frame.mic_len() != alg.mic_len() {
            return Err(HandshakeError::UnexpectedMessage);
        }
        eapol_mic::verify_pdu(alg, kck, self.frame.pdu())
            .map_err(|_| HandshakeError::InvalidMic)?;
        Ok(VerifiedKeyFrame {
            frame: self.frame,
            kind: self.kind,
        })
    }
}

/// An EAPOL-Key frame whose Key MIC verified under the KCK of the PTK (or
/// TPTK) it was checked with.
#[derive(Debug, Clone, Copy)]
pub struct VerifiedKeyFrame<'a> {
    frame: KeyFrame<&'a [u8]>,
    kind: MessageKind,
}

impl<'a> VerifiedKeyFrame<'a> {
    /// The message this frame is.
    pub fn kind(&self) -> MessageKind {
        self.kind
    }

    /// The verified view.
    pub fn frame(&self) -> &KeyFrame<&'a [u8]> {
        &self.frame
    }

    /// The Key Data in plaintext, written to `out`: decrypted with the KEK
    /// when the Encrypted Key Data bit is set (RC4 for key descriptor
    /// version 1, AES key unwrap otherwise, 12.7.2 j), copied otherwise.
    /// `KeyDataUnwrap` when decryption fails; `out` is wiped then.
    pub fn key_data<'o>(&self, kek: &[u8], out: &'o mut [u8]) -> Result<&'o [u8], HandshakeError> {
        let ki = self.frame.key_info();
        let data = self.frame.key_data();
        let n = if ki.encrypted_key_data() {
            let version = ki.descriptor_version().to_u8();
            let iv = self.frame.key_iv();
            keywrap::decrypt_key_data(version, kek, &iv, data, out)
                .map_err(|_| HandshakeError::KeyDataUnwrap)?
        } else {
            let o = out
                .get_mut(..data.len())
                .ok_or(HandshakeError::InvalidKeyData)?;
            o.copy_from_slice(data);
            data.len()
        };
        out.get(..n).ok_or(HandshakeError::KeyDataUnwrap)
    }
}

/// What plaintext Key Data holds (12.7.2, Table 12-9): the RSNE (or WPA
/// element) of the AP or STA, a second RSNE, and the KDEs the handshakes
/// use. Every item appears at most once.
#[derive(Debug, Clone, Copy, Default)]
pub struct KeyDataInfo<'a> {
    /// The (first) RSNE.
    pub rsne: Option<Element<'a>>,
    /// A second RSNE (an AP offering a second pairwise cipher, 12.7.6.4).
    pub second_rsne: Option<Element<'a>>,
    /// The WPA vendor element (00-50-F2 type 1).
    pub wpa: Option<Element<'a>>,
    /// The GTK KDE.
    pub gtk: Option<Gtk<'a>>,
    /// The IGTK KDE.
    pub igtk: Option<Igtk<'a>>,
    /// The BIGTK KDE.
    pub bigtk: Option<Igtk<'a>>,
    /// The PMKID KDE.
    pub pmkid: Option<&'a [u8]>,
    /// The MAC address KDE.
    pub mac_address: Option<&'a [u8]>,
    /// The Key ID KDE (Extended Key ID, 12.7.6.4): the KeyID of the PTK.
    pub key_id: Option<u8>,
}

fn set_once<T>(slot: &mut Option<T>, v: T) -> Result<(), HandshakeError> {
    if slot.is_some() {
        return Err(HandshakeError::InvalidKeyData);
    }
    *slot = Some(v);
    Ok(())
}

fn parse_igtk(d: &[u8]) -> Result<Igtk<'_>, HandshakeError> {
    // Key ID (2, little-endian), IPN (6, little-endian), key (16 or 32).
    if d.len() != 8 + 16 && d.len() != 8 + 32 {
        return Err(HandshakeError::InvalidKeyData);
    }
    let (head, key) = d.split_at(8);
    let mut ipn = [0u8; 8];
    ipn[..6].copy_from_slice(&head[2..8]);
    Ok(Igtk {
        key_id: u16::from_le_bytes([head[0], head[1]]),
        ipn: u64::from_le_bytes(ipn),
        key,
    })
}

impl<'a> KeyDataInfo<'a> {
    /// Parses plaintext Key Data (padding after the last item ignored).
    /// `InvalidKeyData` when it does not parse, holds an item twice, or a
    /// KDE has an impossible length.
    pub fn parse(key_data: &'a [u8]) -> Result<KeyDataInfo<'a>, HandshakeError> {
        let mut info = KeyDataInfo::default();
        for item in KeyDataIter::new(key_data) {
            match item.map_err(|_| HandshakeError::InvalidKeyData)? {
                KeyDataItem::Element(e) if e.id == ElementId::RSN.0 => {
                    if info.rsne.is_none() {
                        info.rsne = Some(e);
                    } else {
                        set_once(&mut info.second_rsne, e)?;
                    }
                }
                KeyDataItem::Element(e)
                    if e.id == ElementId::VENDOR_SPECIFIC.0
                        && e.data.get(..4)
                            == Some(
                                &[OUI_MICROSOFT[0], OUI_MICROSOFT[1], OUI_MICROSOFT[2], 1][..],
                            ) =>
                {
                    set_once(&mut info.wpa, e)?;
                }
                KeyDataItem::Element(_) => {}
                KeyDataItem::Kde(k) => info.add_kde(k)?,
            }
        }
        Ok(info)
    }

    fn add_kde(&mut self, k: Kde<'a>) -> Result<(), HandshakeError> {
        let bad = HandshakeError::InvalidKeyData;
        match k.kde_type {
            KdeType::GTK => {
                // Figure 12-35: Key ID (bits 0-1), Tx (bit 2), reserved
                // octet, GTK of 5 to 32 octets.
                let (&flags, rest) = k.data.split_first().ok_or(bad)?;
                let key = rest.get(1..).ok_or(bad)?;
                if !(5..=32).contains(&key.len()) {
                    return Err(bad);
                }
                set_once(
                    &mut self.gtk,
                    Gtk {
                        key_id: flags & 3,
                        tx: flags & 4 != 0,
                        key,
                    },
                )
            }
            KdeType::IGTK => set_once(&mut self.igtk, parse_igtk(k.data)?),
            KdeType::BIGTK => set_once(&mut self.bigtk, parse_igtk(k.data)?),
            KdeType::PMKID => {
                if k.data.len() != 16 {
                    return Err(bad);
                }
                set_once(&mut self.pmkid, k.data)
            }
            KdeType::MAC_ADDRESS => {
                if k.data.len() != 6 {
                    return Err(bad);
                }
                set_once(&mut self.mac_address, k.data)
            }
            KdeType::KEY_ID => {
                // Figure 12-43: Key ID (bits 0-1), reserved octet.
                let id = *k.data.first().ok_or(bad)?;
                set_once(&mut self.key_id, id & 3)
            }
            _ => Ok(()),
        }
    }
}

/// Writes a GTK KDE (12.7.2, Figure 12-35) into `buf`, returning its
/// length.
pub fn emit_gtk_kde(
    key_id: u8,
    tx: bool,
    gtk: &[u8],
    buf: &mut [u8],
) -> Result<usize, HandshakeError> {
    let mut data = [0u8; 2 + 32];
    let d = data
        .get_mut(..2 + gtk.len())
        .ok_or(HandshakeError::InvalidKeyData)?;
    d[0] = (key_id & 3) | if tx { 4 } else { 0 };
    d[2..].copy_from_slice(gtk);
    let r = Kde {
        kde_type: KdeType::GTK,
        data: d,
    }
    .emit(buf)
    .map_err(|_| HandshakeError::InvalidKeyData);
    data.zeroize();
    r
}

/// Writes an IGTK KDE (Figure 12-37; BIGTK with `bigtk`) into `buf`,
/// returning its length.
pub fn emit_igtk_kde(
    key_id: u16,
    ipn: u64,
    igtk: &[u8],
    bigtk: bool,
    buf: &mut [u8],
) -> Result<usize, HandshakeError> {
    if igtk.len() != 16 && igtk.len() != 32 {
        return Err(HandshakeError::InvalidKeyData);
    }
    let mut data = [0u8; 8 + 32];
    data[..2].copy_from_slice(&key_id.to_le_bytes());
    data[2..8].copy_from_slice(&ipn.to_le_bytes()[..6]);
    data[8..8 + igtk.len()].copy_from_slice(igtk);
    let r = Kde {
        kde_type: if bigtk { KdeType::BIGTK } else { KdeType::IGTK },
        data: &data[..8 + igtk.len()],
    }
    .emit(buf)
    .map_err(|_| HandshakeError::InvalidKeyData);
    data.zeroize();
    r
}

/// Encrypts Key Data for an EAPOL-Key frame of key descriptor `version`
/// (12.7.2 j): the plaintext is `plain[..len]`; for AES key wrap `plain`
/// needs room for the padding, which is added in place. Writes the
/// encrypted Key Data into `out` and returns its length. `plain` is wiped.
pub fn seal_key_data(
    version: KeyDescriptorVersion,
    kek: &[u8],
    key_iv: &[u8; 16],
    plain: &mut [u8],
    len: usize,
    out: &mut [u8],
) -> Result<usize, HandshakeError> {
    let bad = HandshakeError::InvalidKeyData;
    let r = match version {
        KeyDescriptorVersion::HmacMd5Rc4 => (|| {
            let p = plain.get(..len).ok_or(bad)?;
            let o = out.get_mut(..len).ok_or(bad)?;
            o.copy_from_slice(p);
            keywrap::danger_rc4_key_data(kek, key_iv, o).map_err(|_| bad)?;
            Ok(len)
        })(),
        KeyDescriptorVersion::Unknown(_) => Err(HandshakeError::Unsupported),
        _ => (|| {
            let padded = keywrap::pad_key_data(plain, len).map_err(|_| bad)?;
            let p = plain.get(..padded).ok_or(bad)?;
            keywrap::wrap_key_data(kek, p, out).map_err(|_| bad)
        })(),
    };
    plain.zeroize();
    r
}

/// The fields of an EAPOL-Key frame to send; the MIC is computed by
/// [`KeyFrameSpec::emit`].
#[derive(Debug, Clone, Copy)]
pub struct KeyFrameSpec<'a> {
    /// Descriptor Type.
    pub descriptor: KeyDescriptor,
    /// Key Information (the Key MIC bit decides whether a MIC is
    /// computed).
    pub key_info: KeyInfo,
    /// Key Length.
    pub key_length: u16,
    /// Key Replay Counter.
    pub replay_counter: u64,
    /// Key Nonce.
    pub key_nonce: [u8; 32],
    /// EAPOL-Key IV.
    pub key_iv: [u8; 16],
    /// Key RSC as a number (sent least significant octet first).
    pub key_rsc: u64,
    /// Key Data as sent (already sealed when encrypted).
    pub key_data: &'a [u8],
}

/// EAPOL protocol version of the frames sent (IEEE Std 802.1X-2004).
pub const EAPOL_VERSION: u8 = 2;

impl KeyFrameSpec<'_> {
    /// Writes the EAPOL PDU into `buf` with a Key MIC field of
    /// `alg.mic_len()` octets, signed with `kck` when the Key MIC bit is
    /// set (zero otherwise). Returns the PDU length.
    pub fn emit(
        &self,
        alg: MicAlgorithm,
        kck: &[u8],
        buf: &mut [u8],
    ) -> Result<usize, HandshakeError> {
        let zeros = [0u8; MAX_MIC_LEN];
        let repr = KeyFrameRepr {
            eapol_version: EAPOL_VERSION,
            descriptor_type: self.descriptor,
            key_info: self.key_info,
            key_length: self.key_length,
            replay_counter: self.replay_counter,
            key_nonce: self.key_nonce,
            key_iv: self.key_iv,
            key_rsc: self.key_rsc.to_le_bytes(),
            reserved: [0; 8],
            mic: zeros
                .get(..alg.mic_len())
                .ok_or(HandshakeError::Unsupported)?,
            key_data: self.key_data,
        };
        let n = repr.emit(buf)?;
        if self.key_info.key_mic() {
            let pdu = buf.get_mut(..n).ok_or(HandshakeError::Malformed)?;
            eapol_mic::sign_pdu(alg, kck, pdu).map_err(|_| HandshakeError::Unsupported)?;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(ki: u16) -> KeyInfo {
        KeyInfo(ki)
    }

    fn frame(ki: KeyInfo, nonce: [u8; 32], key_data: &[u8], buf: &mut [u8]) -> usize {
        KeyFrameSpec {
            descriptor: KeyDescriptor::Rsn,
            key_info: ki,
            key_length: 16,
            replay_counter: 1,
            key_nonce: nonce,
            key_iv: [0; 16],
            key_rsc: 0,
            key_data,
        }
        .emit(MicAlgorithm::HmacSha1_128, &[7; 16], buf)
        .unwrap()
    }

    #[test]
    fn classification_of_the_messages_of_12_7_6_and_12_7_7() {
        // Key Information values of IEEE Std 802.11-2020, 12.7.6.2-5 and
        // 12.7.7.2-3 with key descriptor version 2.
        let cases = [
            (0x008a, [1; 32], &[][..], MessageKind::FourWay1),
            (0x010a, [2; 32], &[48, 2, 1, 0][..], MessageKind::FourWay2),
            (0x13ca, [1; 32], &[0; 24][..], MessageKind::FourWay3),
            (0x030a, [0; 32], &[][..], MessageKind::FourWay4),
            // WPA message 4: no Secure bit, no Key Data, zero nonce.
            (0x010a, [0; 32], &[][..], MessageKind::FourWay4),
            (0x1382, [0; 32], &[0; 24][..], MessageKind::Group1),
            (0x0302, [0; 32], &[][..], MessageKind::Group2),
            (0x0b0a, [0; 32], &[][..], MessageKind::Request),
            (0x00ca, [0; 32], &[][..], MessageKind::Other),
            (0x2302, [0; 32], &[][..], MessageKind::Other),
        ];
        for (ki, nonce, kd, kind) in cases {
            let mut buf = [0u8; 200];
            let n = frame(info(ki), nonce, kd, &mut buf);
            let u = UnverifiedKeyFrame::parse(&buf[..n], 16).unwrap();
            assert_eq!(u.kind(), kind, "{ki:#06x}");
        }
    }

    #[test]
    fn mic_verification_gates_trust() {
        let mut buf = [0u8; 200];
        let n = frame(info(0x010a), [2; 32], &[48, 2, 1, 0], &mut buf);
        let pdu = &buf[..n];
        let u = UnverifiedKeyFrame::parse(pdu, 16).unwrap();
        let v = u.verify_mic(MicAlgorithm::HmacSha1_128, &[7; 16]).unwrap();
        assert_eq!(v.kind(), MessageKind::FourWay2);
        let mut out = [0u8; 64];
        assert_eq!(v.key_data(&[0; 16], &mut out).unwrap(), &[48, 2, 1, 0]);
        // Wrong KCK, then every octet flipped in turn: rejected.
        let u = UnverifiedKeyFrame::parse(pdu, 16).unwrap();
        assert_eq!(
            u.verify_mic(MicAlgorithm::HmacSha1_128, &[8; 16]).err(),
            Some(HandshakeError::InvalidMic)
        );
        for i in 0..n {
            let mut bad = [0u8; 200];
            bad[..n].copy_from_slice(pdu);
            bad[i] ^= 0x01;
            if let Ok(u) = UnverifiedKeyFrame::parse(&bad[..n], 16) {
                assert!(
                    u.verify_mic(MicAlgorithm::HmacSha1_128, &[7; 16]).is_err(),
                    "octet {i}"
                );
            }
        }
        // A frame without the Key MIC bit never verifies.
        let n = frame(info(0x008a), [1; 32], &[], &mut buf);
        let u = UnverifiedKeyFrame::parse(&buf[..n], 16).unwrap();
        assert_eq!(
            u.verify_mic(MicAlgorithm::HmacSha1_128, &[7; 16]).err(),
            Some(HandshakeError::UnexpectedMessage)
        );
        assert_eq!(
            UnverifiedKeyFrame::parse(&buf[..n - 1], 16).err(),
            Some(HandshakeError::Malformed)
        );
    }

    #[test]
    fn sealed_key_data_round_trip_and_kdes() {
        let kek = [3u8; 16];
        let mut plain = [0u8; 128];
        let mut n = 0;
        plain[..4].copy_from_slice(&[48, 2, 1, 0]);
        n += 4;
        n += emit_gtk_kde(2, true, &[0x11; 16], &mut plain[n..]).unwrap();
        n += emit_igtk_kde(4, 0x0102_0304_0506, &[0x22; 16], false, &mut plain[n..]).unwrap();
        for version in [
            KeyDescriptorVersion::HmacSha1Aes,
            KeyDescriptorVersion::HmacMd5Rc4,
            KeyDescriptorVersion::AkmDefined,
        ] {
            let mut p = plain;
            let mut sealed = [0u8; 160];
            let iv = [9u8; 16];
            let m = seal_key_data(version, &kek, &iv, &mut p, n, &mut sealed).unwrap();
            assert_eq!(p, [0; 128], "plaintext wiped");
            let ki = info(0x13c8 | u16::from(version.to_u8()));
            let mut buf = [0u8; 300];
            let len = KeyFrameSpec {
                descriptor: KeyDescriptor::Rsn,
                key_info: ki,
                key_length: 16,
                replay_counter: 2,
                key_nonce: [1; 32],
                key_iv: iv,
                key_rsc: 0,
                key_data: &sealed[..m],
            }
            .emit(MicAlgorithm::HmacSha1_128, &[7; 16], &mut buf)
            .unwrap();
            let v = UnverifiedKeyFrame::parse(&buf[..len], 16)
                .unwrap()
                .verify_mic(MicAlgorithm::HmacSha1_128, &[7; 16])
                .unwrap();
            let mut out = [0u8; 160];
            let kd = v.key_data(&kek, &mut out).unwrap();
            let i = KeyDataInfo::parse(kd).unwrap();
            assert_eq!(i.rsne.unwrap().data, &[1, 0]);
            let g = i.gtk.unwrap();
            assert_eq!((g.key_id, g.tx, g.key), (2, true, &[0x11; 16][..]));
            let ig = i.igtk.unwrap();
            assert_eq!(
                (ig.key_id, ig.ipn, ig.key),
                (4, 0x0102_0304_0506, &[0x22; 16][..])
            );
            if version != KeyDescriptorVersion::HmacMd5Rc4 {
                // A wrong KEK fails the key unwrap integrity check.
                let mut out = [0u8; 160];
                assert_eq!(
                    v.key_data(&[4; 16], &mut out).err(),
                    Some(HandshakeError::KeyDataUnwrap)
                );
                assert_eq!(out, [0; 160]);
            }
        }
    }

    #[test]
    fn key_data_duplicates_and_bad_lengths() {
        let mut kd = [0u8; 128];
        let mut n = emit_gtk_kde(1, false, &[1; 16], &mut kd).unwrap();
        n += emit_gtk_kde(2, false, &[2; 16], &mut kd[n..]).unwrap();
        assert_eq!(
            KeyDataInfo::parse(&kd[..n]).err(),
            Some(HandshakeError::InvalidKeyData)
        );
        // GTK KDE with a 4-octet key; IGTK KDE with 20.
        let short = [0xdd, 10, 0x00, 0x0f, 0xac, 1, 1, 0, 1, 2, 3, 4];
        assert!(KeyDataInfo::parse(&short).is_err());
        let mut b = [0u8; 64];
        assert!(emit_igtk_kde(4, 0, &[0; 20], false, &mut b).is_err());
        // Truncated element.
        assert!(KeyDataInfo::parse(&[48, 9, 1]).is_err());
        // Padding is ignored.
        let i = KeyDataInfo::parse(&[48, 2, 1, 0, 0xdd, 0, 0, 0]).unwrap();
        assert!(i.rsne.is_some() && i.gtk.is_none());
    }
}
