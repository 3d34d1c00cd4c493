//! EAPOL PDUs (IEEE Std 802.1X-2020, 11.3) and the EAPOL-Key frame of
//! IEEE Std 802.11-2020, 12.7.2 (Figure 12-32).
//!
//! EAPOL header: Protocol Version (1), Packet Type (1), Packet Body Length
//! (2, big-endian). EAPOL-Key body, all integers big-endian:
//!
//! | field | octets |
//! |---|---|
//! | Descriptor Type (2 = IEEE 802.11, 254 = WPA) | 1 |
//! | Key Information | 2 |
//! | Key Length | 2 |
//! | Key Replay Counter | 8 |
//! | Key Nonce | 32 |
//! | EAPOL-Key IV | 16 |
//! | Key RSC | 8 |
//! | Reserved | 8 |
//! | Key MIC | 0, 16, 24 (by AKM, 12.7.3) |
//! | Key Data Length | 2 |
//! | Key Data | n |
//!
//! The MIC length is not in the frame: the view takes it as a parameter.

use crate::bytes;
use crate::element::{Element, Elements, OUI_IEEE80211};
use crate::{Error, Result};

/// Length of the EAPOL header.
pub const EAPOL_HEADER_LEN: usize = 4;
/// Default Key MIC length.
pub const DEFAULT_MIC_LEN: usize = 16;
/// Largest Key MIC length accepted by the view.
pub const MAX_MIC_LEN: usize = 32;

/// EAPOL Packet Type (IEEE Std 802.1X-2020, Table 11-3), a closed set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PacketType {
    /// 0: EAPOL-EAP.
    Eap,
    /// 1: EAPOL-Start.
    Start,
    /// 2: EAPOL-Logoff.
    Logoff,
    /// 3: EAPOL-Key.
    Key,
    /// 4: EAPOL-Encapsulated-ASF-Alert.
    EncapsulatedAsfAlert,
    /// 5: EAPOL-MKA.
    Mka,
    /// 6: EAPOL-Announcement (Generic).
    AnnouncementGeneric,
    /// 7: EAPOL-Announcement (Specific).
    AnnouncementSpecific,
    /// 8: EAPOL-Announcement-Req.
    AnnouncementReq,
    /// Another value.
    Unknown(u8),
}

impl PacketType {
    /// From the field value.
    pub const fn from_u8(v: u8) -> PacketType {
        match v {
            0 => PacketType::Eap,
            1 => PacketType::Start,
            2 => PacketType::Logoff,
            3 => PacketType::Key,
            4 => PacketType::EncapsulatedAsfAlert,
            5 => PacketType::Mka,
            6 => PacketType::AnnouncementGeneric,
            7 => PacketType::AnnouncementSpecific,
            8 => PacketType::AnnouncementReq,
            v => PacketType::Unknown(v),
        }
    }

    /// The field value.
    pub const fn to_u8(self) -> u8 {
        match self {
            PacketType::Eap => 0,
            PacketType::Start => 1,
            PacketType::Logoff => 2,
            PacketType::Key => 3,
            PacketType::EncapsulatedAsfAlert => 4,
            PacketType::Mka => 5,
            PacketType::AnnouncementGeneric => 6,
            PacketType::AnnouncementSpecific => 7,
            PacketType::AnnouncementReq => 8,
            PacketType::Unknown(v) => v,
        }
    }
}

/// A view over an EAPOL PDU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EapolFrame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> EapolFrame<T> {
    /// Wraps a buffer without checking it; accessors never panic.
    pub const fn new_unchecked(buffer: T) -> EapolFrame<T> {
        EapolFrame { buffer }
    }

    /// Wraps a buffer after [`EapolFrame::check_len`].
    pub fn new_checked(buffer: T) -> Result<EapolFrame<T>> {
        let f = EapolFrame::new_unchecked(buffer);
        f.check_len()?;
        Ok(f)
    }

    /// Checks that the header and the announced body are present (bytes
    /// after the body, such as Ethernet padding, are allowed).
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < EAPOL_HEADER_LEN || b.len() - EAPOL_HEADER_LEN < usize::from(self.body_len()) {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// Returns the underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Protocol Version (1, 2 or 3).
    pub fn version(&self) -> u8 {
        bytes::u8_at(self.buffer.as_ref(), 0).unwrap_or(0)
    }

    /// Packet Type.
    pub fn packet_type(&self) -> PacketType {
        PacketType::from_u8(bytes::u8_at(self.buffer.as_ref(), 1).unwrap_or(0))
    }

    /// Packet Body Length.
    pub fn body_len(&self) -> u16 {
        bytes::u16_be(self.buffer.as_ref(), 2).unwrap_or(0)
    }

    /// The packet body (exactly Packet Body Length octets).
    pub fn body(&self) -> &[u8] {
        let end = EAPOL_HEADER_LEN + usize::from(self.body_len());
        self.buffer
            .as_ref()
            .get(EAPOL_HEADER_LEN..end)
            .unwrap_or(&[])
    }
}

/// The Key Descriptor Type (12.7.2), a closed set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyDescriptor {
    /// 2: IEEE 802.11 key descriptor (RSN).
    Rsn,
    /// 254: WPA key descriptor (pre-RSN).
    Wpa,
    /// Another value.
    Unknown(u8),
}

impl KeyDescriptor {
    /// From the field value.
    pub const fn from_u8(v: u8) -> KeyDescriptor {
        match v {
            2 => KeyDescriptor::Rsn,
            254 => KeyDescriptor::Wpa,
            v => KeyDescriptor::Unknown(v),
        }
    }

    /// The field value.
    pub const fn to_u8(self) -> u8 {
        match self {
            KeyDescriptor::Rsn => 2,
            KeyDescriptor::Wpa => 254,
            KeyDescriptor::Unknown(v) => v,
        }
    }
}

/// The Key Descriptor Version subfield (12.7.2 b.1), a closed set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyDescriptorVersion {
    /// 0: MIC and key wrap defined by the AKM.
    AkmDefined,
    /// 1: HMAC-MD5 MIC, RC4 key data encryption.
    HmacMd5Rc4,
    /// 2: HMAC-SHA1-128 MIC, NIST AES key wrap.
    HmacSha1Aes,
    /// 3: AES-128-CMAC MIC, NIST AES key wrap.
    AesCmacAes,
    /// A reserved value (4..=7).
    Unknown(u8),
}

impl KeyDescriptorVersion {
    /// From the three-bit value.
    pub const fn from_u8(v: u8) -> KeyDescriptorVersion {
        match v & 7 {
            0 => KeyDescriptorVersion::AkmDefined,
            1 => KeyDescriptorVersion::HmacMd5Rc4,
            2 => KeyDescriptorVersion::HmacSha1Aes,
            3 => KeyDescriptorVersion::AesCmacAes,
            v => KeyDescriptorVersion::Unknown(v),
        }
    }

    /// The three-bit value.
    pub const fn to_u8(self) -> u8 {
        match self {
            KeyDescriptorVersion::AkmDefined => 0,
            KeyDescriptorVersion::HmacMd5Rc4 => 1,
            KeyDescriptorVersion::HmacSha1Aes => 2,
            KeyDescriptorVersion::AesCmacAes => 3,
            KeyDescriptorVersion::Unknown(v) => v & 7,
        }
    }
}

/// The Key Information field (12.7.2 b, Figure 12-33), in host order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct KeyInfo(pub u16);

macro_rules! ki_flag {
    ($(#[$m:meta])* $get:ident, $with:ident, $mask:ident) => {
        $(#[$m])*
        pub const fn $get(self) -> bool {
            self.0 & Self::$mask != 0
        }

        #[doc = concat!("This value with [`Self::", stringify!($get), "`] set to `on`.")]
        #[must_use]
        pub const fn $with(self, on: bool) -> Self {
            if on {
                Self(self.0 | Self::$mask)
            } else {
                Self(self.0 & !Self::$mask)
            }
        }
    };
}

impl KeyInfo {
    /// Bits 0..=2: Key Descriptor Version.
    pub const VERSION_MASK: u16 = 0x0007;
    /// Bit 3: Key Type (1 = pairwise, 0 = group).
    pub const KEY_TYPE: u16 = 1 << 3;
    /// Bits 4..=5: reserved in RSN (Key Index in the WPA descriptor).
    pub const KEY_INDEX_MASK: u16 = 0x0030;
    /// Bit 6: Install.
    pub const INSTALL: u16 = 1 << 6;
    /// Bit 7: Key Ack.
    pub const KEY_ACK: u16 = 1 << 7;
    /// Bit 8: Key MIC.
    pub const KEY_MIC: u16 = 1 << 8;
    /// Bit 9: Secure.
    pub const SECURE: u16 = 1 << 9;
    /// Bit 10: Error.
    pub const ERROR: u16 = 1 << 10;
    /// Bit 11: Request.
    pub const REQUEST: u16 = 1 << 11;
    /// Bit 12: Encrypted Key Data.
    pub const ENCRYPTED_KEY_DATA: u16 = 1 << 12;
    /// Bit 13: SMK Message.
    pub const SMK_MESSAGE: u16 = 1 << 13;

    /// The Key Descriptor Version subfield.
    pub const fn descriptor_version(self) -> KeyDescriptorVersion {
        KeyDescriptorVersion::from_u8((self.0 & Self::VERSION_MASK) as u8)
    }

    /// This value with the Key Descriptor Version set.
    #[must_use]
    pub const fn with_descriptor_version(self, v: KeyDescriptorVersion) -> Self {
        Self((self.0 & !Self::VERSION_MASK) | v.to_u8() as u16)
    }

    /// The WPA Key Index subfield (bits 4..=5).
    pub const fn key_index(self) -> u8 {
        ((self.0 & Self::KEY_INDEX_MASK) >> 4) as u8
    }

    ki_flag!(
        /// Key Type: pairwise.
        pairwise, with_pairwise, KEY_TYPE
    );
    ki_flag!(
        /// Install.
        install, with_install, INSTALL
    );
    ki_flag!(
        /// Key Ack.
        key_ack, with_key_ack, KEY_ACK
    );
    ki_flag!(
        /// Key MIC.
        key_mic, with_key_mic, KEY_MIC
    );
    ki_flag!(
        /// Secure.
        secure, with_secure, SECURE
    );
    ki_flag!(
        /// Error.
        error, with_error, ERROR
    );
    ki_flag!(
        /// Request.
        request, with_request, REQUEST
    );
    ki_flag!(
        /// Encrypted Key Data.
        encrypted_key_data, with_encrypted_key_data, ENCRYPTED_KEY_DATA
    );
    ki_flag!(
        /// SMK Message.
        smk_message, with_smk_message, SMK_MESSAGE
    );
}

mod field {
    pub const DESCRIPTOR: usize = 4;
    pub const KEY_INFO: usize = 5;
    pub const KEY_LEN: usize = 7;
    pub const REPLAY: usize = 9;
    pub const NONCE: usize = 17;
    pub const IV: usize = 49;
    pub const RSC: usize = 65;
    pub const RESERVED: usize = 73;
    pub const MIC: usize = 81;
}

/// A view over an EAPOL-Key PDU, from the EAPOL header on, with a Key MIC
/// of `mic_len` octets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyFrame<T: AsRef<[u8]>> {
    buffer: T,
    mic_len: usize,
}

impl<T: AsRef<[u8]>> KeyFrame<T> {
    /// Wraps a buffer without checking it; accessors never panic.
    pub const fn new_unchecked(buffer: T, mic_len: usize) -> KeyFrame<T> {
        KeyFrame { buffer, mic_len }
    }

    /// Wraps a buffer after [`KeyFrame::check_len`].
    pub fn new_checked(buffer: T, mic_len: usize) -> Result<KeyFrame<T>> {
        let f = KeyFrame::new_unchecked(buffer, mic_len);
        f.check_len()?;
        Ok(f)
    }

    /// Checks: MIC length at most 32 (`Unsupported`), the EAPOL header and
    /// body present (`Truncated`), Packet Type EAPOL-Key (`Malformed`),
    /// Descriptor Type 2 or 254 (`Unsupported`), a body long enough for the
    /// fixed fields, and Key Data ending exactly where the body ends
    /// (`Malformed`).
    pub fn check_len(&self) -> Result<()> {
        if self.mic_len > MAX_MIC_LEN {
            return Err(Error::Unsupported);
        }
        let e = EapolFrame::new_checked(self.buffer.as_ref())?;
        if e.packet_type() != PacketType::Key {
            return Err(Error::Malformed);
        }
        if e.body().is_empty() {
            return Err(Error::Truncated);
        }
        if let KeyDescriptor::Unknown(_) = self.descriptor_type() {
            return Err(Error::Unsupported);
        }
        let fixed = self.key_data_offset() - EAPOL_HEADER_LEN;
        let body_len = e.body().len();
        if body_len < fixed {
            return Err(Error::Malformed);
        }
        // The body is exactly the fixed fields and the Key Data: octets
        // between the end of Key Data and the end of the body would be
        // covered by the MIC yet belong to no field.
        if usize::from(self.key_data_len()) != body_len - fixed {
            return Err(Error::Malformed);
        }
        Ok(())
    }

    /// Returns the underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The MIC length this view was made with.
    pub fn mic_len(&self) -> usize {
        self.mic_len
    }

    /// The EAPOL header view.
    pub fn eapol(&self) -> EapolFrame<&[u8]> {
        EapolFrame::new_unchecked(self.buffer.as_ref())
    }

    /// The whole PDU: header and body, without bytes after the body (this
    /// is what the Key MIC covers, 12.7.2 h).
    pub fn pdu(&self) -> &[u8] {
        let end = EAPOL_HEADER_LEN + usize::from(self.eapol().body_len());
        self.buffer.as_ref().get(..end).unwrap_or(&[])
    }

    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// Descriptor Type.
    pub fn descriptor_type(&self) -> KeyDescriptor {
        KeyDescriptor::from_u8(bytes::u8_at(self.b(), field::DESCRIPTOR).unwrap_or(0))
    }

    /// Key Information.
    pub fn key_info(&self) -> KeyInfo {
        KeyInfo(bytes::u16_be(self.b(), field::KEY_INFO).unwrap_or(0))
    }

    /// Key Length (of the pairwise cipher's temporal key; 0 in group
    /// messages of RSN).
    pub fn key_length(&self) -> u16 {
        bytes::u16_be(self.b(), field::KEY_LEN).unwrap_or(0)
    }

    /// Key Replay Counter.
    pub fn replay_counter(&self) -> u64 {
        bytes::u64_be(self.b(), field::REPLAY).unwrap_or(0)
    }

    /// Key Nonce.
    pub fn key_nonce(&self) -> [u8; 32] {
        bytes::array(self.b(), field::NONCE).unwrap_or([0; 32])
    }

    /// EAPOL-Key IV.
    pub fn key_iv(&self) -> [u8; 16] {
        bytes::array(self.b(), field::IV).unwrap_or([0; 16])
    }

    /// Key RSC as transmitted: the receive sequence counter of the GTK,
    /// least significant octet first (PN0 first).
    pub fn key_rsc(&self) -> [u8; 8] {
        bytes::array(self.b(), field::RSC).unwrap_or([0; 8])
    }

    /// Key RSC as a number.
    pub fn key_rsc_u64(&self) -> u64 {
        u64::from_le_bytes(self.key_rsc())
    }

    /// The Reserved field (Key ID in the WPA descriptor).
    pub fn reserved(&self) -> [u8; 8] {
        bytes::array(self.b(), field::RESERVED).unwrap_or([0; 8])
    }

    /// Key MIC.
    pub fn mic(&self) -> &[u8] {
        let end = field::MIC.saturating_add(self.mic_len);
        self.b().get(field::MIC..end).unwrap_or(&[])
    }

    fn key_data_offset(&self) -> usize {
        field::MIC.saturating_add(self.mic_len).saturating_add(2)
    }

    /// Key Data Length.
    pub fn key_data_len(&self) -> u16 {
        bytes::u16_be(self.b(), field::MIC.saturating_add(self.mic_len)).unwrap_or(0)
    }

    /// Key Data (possibly encrypted, see [`KeyInfo::encrypted_key_data`]).
    pub fn key_data(&self) -> &[u8] {
        let start = self.key_data_offset();
        let end = start.saturating_add(usize::from(self.key_data_len()));
        self.b().get(start..end).unwrap_or(&[])
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> KeyFrame<T> {
    /// Key MIC, mutable.
    pub fn mic_mut(&mut self) -> &mut [u8] {
        let end = field::MIC.saturating_add(self.mic_len);
        self.buffer
            .as_mut()
            .get_mut(field::MIC..end)
            .unwrap_or(&mut [])
    }

    /// Writes the Key MIC; `Malformed` on a length mismatch.
    pub fn set_mic(&mut self, mic: &[u8]) -> Result<()> {
        let m = self.mic_mut();
        if m.len() != mic.len() {
            return Err(Error::Malformed);
        }
        m.copy_from_slice(mic);
        Ok(())
    }

    /// Zeroes the Key MIC, as before computing or checking it (12.7.2 h).
    pub fn zero_mic(&mut self) {
        self.mic_mut().fill(0);
    }

    /// Key Data, mutable.
    pub fn key_data_mut(&mut self) -> &mut [u8] {
        let start = self.key_data_offset();
        let end = start.saturating_add(usize::from(self.key_data_len()));
        self.buffer.as_mut().get_mut(start..end).unwrap_or(&mut [])
    }

    /// Replaces Key Data (for example with its wrapped form), updating Key
    /// Data Length and Packet Body Length. `Truncated` if the buffer has no
    /// room; nothing is written then.
    pub fn set_key_data(&mut self, data: &[u8]) -> Result<()> {
        let start = self.key_data_offset();
        let len = u16::try_from(data.len()).map_err(|_| Error::Malformed)?;
        let body =
            u16::try_from(start - EAPOL_HEADER_LEN + data.len()).map_err(|_| Error::Malformed)?;
        let b = self.buffer.as_mut();
        let end = start + data.len();
        if b.len() < end {
            return Err(Error::Truncated);
        }
        b[start..end].copy_from_slice(data);
        b[start - 2..start].copy_from_slice(&len.to_be_bytes());
        b[2..4].copy_from_slice(&body.to_be_bytes());
        Ok(())
    }

    /// Writes Key Information.
    pub fn set_key_info(&mut self, ki: KeyInfo) {
        if let Some(b) = self
            .buffer
            .as_mut()
            .get_mut(field::KEY_INFO..field::KEY_LEN)
        {
            b.copy_from_slice(&ki.0.to_be_bytes());
        }
    }

    /// Writes the Key Replay Counter.
    pub fn set_replay_counter(&mut self, rc: u64) {
        if let Some(b) = self.buffer.as_mut().get_mut(field::REPLAY..field::NONCE) {
            b.copy_from_slice(&rc.to_be_bytes());
        }
    }
}

/// An owned EAPOL-Key PDU; MIC and Key Data are borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyFrameRepr<'a> {
    /// EAPOL Protocol Version.
    pub eapol_version: u8,
    /// Descriptor Type.
    pub descriptor_type: KeyDescriptor,
    /// Key Information.
    pub key_info: KeyInfo,
    /// Key Length.
    pub key_length: u16,
    /// Key Replay Counter.
    pub replay_counter: u64,
    /// Key Nonce.
    pub key_nonce: [u8; 32],
    /// EAPOL-Key IV.
    pub key_iv: [u8; 16],
    /// Key RSC as transmitted.
    pub key_rsc: [u8; 8],
    /// Reserved.
    pub reserved: [u8; 8],
    /// Key MIC (its length is the MIC length: 0, 16, 24...).
    pub mic: &'a [u8],
    /// Key Data.
    pub key_data: &'a [u8],
}

impl<'a> KeyFrameRepr<'a> {
    /// Parses a checked view.
    pub fn parse<T: AsRef<[u8]>>(f: &'a KeyFrame<T>) -> Result<KeyFrameRepr<'a>> {
        f.check_len()?;
        Ok(KeyFrameRepr {
            eapol_version: f.eapol().version(),
            descriptor_type: f.descriptor_type(),
            key_info: f.key_info(),
            key_length: f.key_length(),
            replay_counter: f.replay_counter(),
            key_nonce: f.key_nonce(),
            key_iv: f.key_iv(),
            key_rsc: f.key_rsc(),
            reserved: f.reserved(),
            mic: f.mic(),
            key_data: f.key_data(),
        })
    }

    /// Length of the PDU.
    pub fn buffer_len(&self) -> usize {
        field::MIC + self.mic.len() + 2 + self.key_data.len()
    }

    /// Writes the PDU, returning its length. `Malformed` for a MIC longer
    /// than 32 octets, key data over 65535 octets, or an unknown
    /// descriptor type.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let len = self.buffer_len();
        if self.mic.len() > MAX_MIC_LEN {
            return Err(Error::Malformed);
        }
        if let KeyDescriptor::Unknown(_) = self.descriptor_type {
            return Err(Error::Malformed);
        }
        let body = u16::try_from(len - EAPOL_HEADER_LEN).map_err(|_| Error::Malformed)?;
        let kdl = u16::try_from(self.key_data.len()).map_err(|_| Error::Malformed)?;
        let b = buf.get_mut(..len).ok_or(Error::Truncated)?;
        b[0] = self.eapol_version;
        b[1] = PacketType::Key.to_u8();
        b[2..4].copy_from_slice(&body.to_be_bytes());
        b[field::DESCRIPTOR] = self.descriptor_type.to_u8();
        b[field::KEY_INFO..field::KEY_LEN].copy_from_slice(&self.key_info.0.to_be_bytes());
        b[field::KEY_LEN..field::REPLAY].copy_from_slice(&self.key_length.to_be_bytes());
        b[field::REPLAY..field::NONCE].copy_from_slice(&self.replay_counter.to_be_bytes());
        b[field::NONCE..field::IV].copy_from_slice(&self.key_nonce);
        b[field::IV..field::RSC].copy_from_slice(&self.key_iv);
        b[field::RSC..field::RESERVED].copy_from_slice(&self.key_rsc);
        b[field::RESERVED..field::MIC].copy_from_slice(&self.reserved);
        let mut o = bytes::put(b, field::MIC, self.mic)?;
        o = bytes::put(b, o, &kdl.to_be_bytes())?;
        bytes::put(b, o, self.key_data)?;
        Ok(len)
    }
}

/// KDE data types (12.7.2, Table 12-9), an open registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KdeType(pub u8);

impl KdeType {
    /// GTK KDE.
    pub const GTK: KdeType = KdeType(1);
    /// MAC address KDE.
    pub const MAC_ADDRESS: KdeType = KdeType(3);
    /// PMKID KDE.
    pub const PMKID: KdeType = KdeType(4);
    /// Nonce KDE.
    pub const NONCE: KdeType = KdeType(6);
    /// Lifetime KDE.
    pub const LIFETIME: KdeType = KdeType(7);
    /// Error KDE.
    pub const ERROR: KdeType = KdeType(8);
    /// IGTK KDE.
    pub const IGTK: KdeType = KdeType(9);
    /// Key ID KDE.
    pub const KEY_ID: KdeType = KdeType(10);
    /// Multi-band GTK KDE.
    pub const MULTI_BAND_GTK: KdeType = KdeType(11);
    /// Multi-band Key ID KDE.
    pub const MULTI_BAND_KEY_ID: KdeType = KdeType(12);
    /// OCI KDE.
    pub const OCI: KdeType = KdeType(13);
    /// BIGTK KDE.
    pub const BIGTK: KdeType = KdeType(14);
}

/// A key data encapsulation (12.7.2, Figure 12-34): a vendor-specific
/// element with OUI 00-0F-AC, a data type and data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kde<'a> {
    /// The data type.
    pub kde_type: KdeType,
    /// The data after the type.
    pub data: &'a [u8],
}

impl<'a> Kde<'a> {
    /// Reads a KDE from an element; `None` if it is not one.
    pub fn from_element(e: Element<'a>) -> Option<Kde<'a>> {
        if e.id != 0xdd || e.data.get(..3)? != OUI_IEEE80211 {
            return None;
        }
        Some(Kde {
            kde_type: KdeType(*e.data.get(3)?),
            data: e.data.get(4..)?,
        })
    }

    /// Length of the encoded KDE.
    pub fn buffer_len(&self) -> usize {
        6 + self.data.len()
    }

    /// Writes the KDE.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let len = u8::try_from(4 + self.data.len()).map_err(|_| Error::Malformed)?;
        let o = bytes::put(buf, 0, &[0xdd, len])?;
        let o = bytes::put(buf, o, &OUI_IEEE80211)?;
        let o = bytes::put(buf, o, &[self.kde_type.0])?;
        bytes::put(buf, o, self.data)
    }

    /// For a GTK KDE (Figure 12-35): Key ID, Tx bit and the GTK.
    pub fn gtk(&self) -> Option<(u8, bool, &'a [u8])> {
        if self.kde_type != KdeType::GTK {
            return None;
        }
        let flags = *self.data.first()?;
        Some((flags & 3, flags & 4 != 0, self.data.get(2..)?))
    }

    /// For an IGTK or BIGTK KDE (Figure 12-37): Key ID, IPN/BIPN and key.
    pub fn igtk(&self) -> Option<(u16, u64, &'a [u8])> {
        if self.kde_type != KdeType::IGTK && self.kde_type != KdeType::BIGTK {
            return None;
        }
        let key_id = bytes::u16_le(self.data, 0)?;
        let ipn: [u8; 6] = bytes::array(self.data, 2)?;
        let mut v = [0u8; 8];
        v[..6].copy_from_slice(&ipn);
        Some((key_id, u64::from_le_bytes(v), self.data.get(8..)?))
    }
}

/// An item of (decrypted) Key Data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyDataItem<'a> {
    /// A KDE.
    Kde(Kde<'a>),
    /// An element (RSNE, vendor elements other than KDEs...).
    Element(Element<'a>),
}

/// Iterates over Key Data: elements and KDEs, stopping at the padding
/// (0xDD followed only by zero octets, 12.7.2 j) that key wrap needs.
#[derive(Debug, Clone)]
pub struct KeyDataIter<'a> {
    inner: Elements<'a>,
}

impl<'a> KeyDataIter<'a> {
    /// Walks `key_data`.
    pub fn new(key_data: &'a [u8]) -> KeyDataIter<'a> {
        KeyDataIter {
            inner: Elements::new(key_data),
        }
    }

    /// The error that ended the walk early, if any.
    pub fn error(&self) -> Option<Error> {
        self.inner.error()
    }
}

impl<'a> Iterator for KeyDataIter<'a> {
    type Item = Result<KeyDataItem<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.inner.remaining();
        if let [0xdd, tail @ ..] = rest {
            if tail.iter().all(|&b| b == 0) {
                self.inner = Elements::new(&[]);
                return None;
            }
        }
        Some(self.inner.next()?.map(|e| match Kde::from_element(e) {
            Some(k) => KeyDataItem::Kde(k),
            None => KeyDataItem::Element(e),
        }))
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::data::DataFrame;
    use crate::element::{Akm, Rsne};
    use crate::llc::EtherType;

    // Messages 1 and 2 of a captured WPA2-PSK 4-way handshake (SSID
    // "hackme4fun1"), published as test input of a public WPA cracking
    // example: QoS data MPDUs with LLC/SNAP and EAPOL-Key, HMAC-SHA1
    // descriptor version 2.
    const MSG1: &str = "88023a019cb6d0fc90c77c8bcacbd7827c8bcacbd78200000000aaaa03000000888e0103005f02008a001000000000000000011a8b4e106c75287aa6d52dbc8342306e2f4f77e3826556a482bcd5f72c97e0f60000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000";
    const MSG2: &str = "88013a017c8bcacbd7829cb6d0fc90c77c8bcacbd78200000600aaaa03000000888e0103007502010a0000000000000000000103864225e34350a84df0061bb6ae60da4c0600879d50ec1ea4f47ee29da4b5da0000000000000000000000000000000000000000000000000000000000000000584c33e052eb53dd19001a339b42eefe001630140100000fac040100000fac040100000fac020000";

    fn eapol_of(mpdu: &[u8]) -> &[u8] {
        let f = DataFrame::new_checked(mpdu).unwrap();
        assert_eq!(f.ethertype(), Some(EtherType::EAPOL));
        &mpdu[f.header_len() + 8..]
    }

    #[test]
    fn captured_message_1() {
        let m = hex::decode(MSG1).unwrap();
        let pdu = eapol_of(&m);
        let e = EapolFrame::new_checked(pdu).unwrap();
        assert_eq!(e.version(), 1);
        assert_eq!(e.packet_type(), PacketType::Key);
        assert_eq!(e.body_len(), 95);
        let k = KeyFrame::new_checked(pdu, DEFAULT_MIC_LEN).unwrap();
        assert_eq!(k.descriptor_type(), KeyDescriptor::Rsn);
        let ki = k.key_info();
        assert_eq!(ki.0, 0x008a);
        assert_eq!(ki.descriptor_version(), KeyDescriptorVersion::HmacSha1Aes);
        assert!(ki.pairwise() && ki.key_ack());
        assert!(!ki.key_mic() && !ki.secure() && !ki.install() && !ki.encrypted_key_data());
        assert_eq!(k.key_length(), 16);
        assert_eq!(k.replay_counter(), 1);
        assert_eq!(k.key_nonce()[..4], [0x1a, 0x8b, 0x4e, 0x10]);
        assert_eq!(k.mic(), &[0; 16]);
        assert_eq!(k.key_data_len(), 0);
        assert!(k.key_data().is_empty());
        let r = KeyFrameRepr::parse(&k).unwrap();
        let mut out = [0u8; 128];
        let n = r.emit(&mut out).unwrap();
        assert_eq!(&out[..n], pdu);
        // Flipped bytes: packet type, descriptor type, key data length.
        let mut bad = pdu.to_vec();
        bad[1] = 0;
        assert_eq!(
            KeyFrame::new_checked(&bad[..], 16).unwrap_err(),
            Error::Malformed
        );
        let mut bad = pdu.to_vec();
        bad[4] = 3;
        assert_eq!(
            KeyFrame::new_checked(&bad[..], 16).unwrap_err(),
            Error::Unsupported
        );
        let mut bad = pdu.to_vec();
        bad[98] = 1;
        assert_eq!(
            KeyFrame::new_checked(&bad[..], 16).unwrap_err(),
            Error::Malformed
        );
        // With a 24-octet MIC the body is too short for the fixed fields.
        assert_eq!(
            KeyFrame::new_checked(pdu, 24).unwrap_err(),
            Error::Malformed
        );
        assert_eq!(
            KeyFrame::new_checked(pdu, 33).unwrap_err(),
            Error::Unsupported
        );
        assert_eq!(
            KeyFrame::new_checked(&pdu[..98], 16).unwrap_err(),
            Error::Truncated
        );
    }

    #[test]
    fn captured_message_2() {
        let m = hex::decode(MSG2).unwrap();
        let pdu = eapol_of(&m);
        let k = KeyFrame::new_checked(pdu, 16).unwrap();
        let ki = k.key_info();
        assert_eq!(ki.0, 0x010a);
        assert!(ki.pairwise() && ki.key_mic() && !ki.key_ack());
        assert_eq!(k.key_length(), 0);
        assert_eq!(k.replay_counter(), 1);
        assert_eq!(
            k.mic(),
            &hex::decode("584c33e052eb53dd19001a339b42eefe").unwrap()[..]
        );
        assert_eq!(k.key_data_len(), 22);
        let mut items = KeyDataIter::new(k.key_data());
        let Some(Ok(KeyDataItem::Element(e))) = items.next() else {
            panic!("expected the RSNE")
        };
        let rsne = Rsne::from_element(e).unwrap();
        assert_eq!(rsne.akms.unwrap().first(), Some(Akm::PSK));
        assert!(items.next().is_none());
        assert_eq!(items.error(), None);
        let r = KeyFrameRepr::parse(&k).unwrap();
        let mut out = [0u8; 160];
        let n = r.emit(&mut out).unwrap();
        assert_eq!(&out[..n], pdu);

        // The MIC input: the PDU with the MIC zeroed; then set it back.
        let mut buf = pdu.to_vec();
        let mut kv = KeyFrame::new_checked(&mut buf[..], 16).unwrap();
        kv.zero_mic();
        assert_eq!(kv.mic(), &[0; 16]);
        assert_eq!(kv.set_mic(&[1; 24]), Err(Error::Malformed));
        kv.set_mic(&hex::decode("584c33e052eb53dd19001a339b42eefe").unwrap())
            .unwrap();
        assert_eq!(kv.pdu(), pdu);
    }

    #[test]
    fn build_message_3_with_kdes_and_set_key_data() {
        // GTK KDE: dd 16 00-0f-ac 01, Key ID 1 with Tx clear, reserved, GTK.
        let mut kd = [0u8; 64];
        let gtk = [0x5a; 16];
        let mut gdata = [0u8; 18];
        gdata[0] = 1;
        gdata[2..].copy_from_slice(&gtk);
        let n = Kde {
            kde_type: KdeType::GTK,
            data: &gdata,
        }
        .emit(&mut kd)
        .unwrap();
        assert_eq!(&kd[..6], &[0xdd, 22, 0x00, 0x0f, 0xac, 0x01]);
        // IGTK KDE: Key ID 4, IPN 0x0102, 16-octet IGTK.
        let mut idata = [0u8; 24];
        idata[0] = 4;
        idata[2] = 0x02;
        idata[3] = 0x01;
        let n2 = Kde {
            kde_type: KdeType::IGTK,
            data: &idata,
        }
        .emit(&mut kd[n..])
        .unwrap();
        // Padding for key wrap: dd 00 00 ...
        kd[n + n2] = 0xdd;
        let kd_len = (n + n2 + 1 + 7) & !7;
        let items: std::vec::Vec<_> = KeyDataIter::new(&kd[..kd_len])
            .map(|i| i.unwrap())
            .collect();
        assert_eq!(items.len(), 2);
        let KeyDataItem::Kde(g) = items[0] else {
            panic!()
        };
        assert_eq!(g.gtk(), Some((1, false, &gtk[..])));
        let KeyDataItem::Kde(i) = items[1] else {
            panic!()
        };
        assert_eq!(i.igtk(), Some((4, 0x0102, &[0u8; 16][..])));
        assert_eq!(i.gtk(), None);

        let ki = KeyInfo::default()
            .with_descriptor_version(KeyDescriptorVersion::AesCmacAes)
            .with_pairwise(true)
            .with_install(true)
            .with_key_ack(true)
            .with_key_mic(true)
            .with_secure(true)
            .with_encrypted_key_data(true);
        assert_eq!(ki.0, 0x13cb);
        let r = KeyFrameRepr {
            eapol_version: 2,
            descriptor_type: KeyDescriptor::Rsn,
            key_info: ki,
            key_length: 16,
            replay_counter: 2,
            key_nonce: [7; 32],
            key_iv: [0; 16],
            key_rsc: [1, 0, 0, 0, 0, 0, 0, 0],
            reserved: [0; 8],
            mic: &[0; 16],
            key_data: &kd[..kd_len],
        };
        let mut buf = [0u8; 256];
        let n = r.emit(&mut buf).unwrap();
        assert_eq!(n, 99 + kd_len);
        assert_eq!(&buf[..4], &[2, 3, 0, (95 + kd_len) as u8]);
        let mut k = KeyFrame::new_checked(&mut buf[..], 16).unwrap();
        assert_eq!(k.key_rsc_u64(), 1);
        // Replace key data by its (here: pretend) wrapped form, 8 longer.
        let wrapped = [0xee; 80];
        k.set_key_data(&wrapped[..kd_len + 8]).unwrap();
        assert_eq!(k.key_data(), &wrapped[..kd_len + 8]);
        assert_eq!(usize::from(k.eapol().body_len()), 95 + kd_len + 8);
        k.check_len().unwrap();
        assert_eq!(k.set_key_data(&[0; 200]), Err(Error::Truncated));
        k.set_key_info(KeyInfo(0x008a));
        k.set_replay_counter(9);
        assert_eq!((k.key_info().0, k.replay_counter()), (0x008a, 9));
        // A 24-octet MIC (AKMs 12/13) and a MIC-less (FILS) frame.
        for mic in [&[0u8; 24][..], &[][..]] {
            let r2 = KeyFrameRepr {
                mic,
                key_data: &[],
                ..r
            };
            let mut b = [0u8; 160];
            let n = r2.emit(&mut b).unwrap();
            let k = KeyFrame::new_checked(&b[..n], mic.len()).unwrap();
            assert_eq!(KeyFrameRepr::parse(&k), Ok(r2));
        }
        let bad = KeyFrameRepr {
            descriptor_type: KeyDescriptor::Unknown(1),
            ..r
        };
        assert_eq!(bad.emit(&mut [0u8; 256]), Err(Error::Malformed));
    }

    #[test]
    fn eapol_header_and_types() {
        let start = [0x02, 0x01, 0x00, 0x00];
        let e = EapolFrame::new_checked(&start[..]).unwrap();
        assert_eq!(e.packet_type(), PacketType::Start);
        assert!(e.body().is_empty());
        assert_eq!(
            EapolFrame::new_checked(&[2, 0, 0, 5, 1][..]).unwrap_err(),
            Error::Truncated
        );
        for v in 0..=255u8 {
            assert_eq!(PacketType::from_u8(v).to_u8(), v);
            assert_eq!(KeyDescriptor::from_u8(v).to_u8(), v);
        }
        for v in 0..8u8 {
            assert_eq!(KeyDescriptorVersion::from_u8(v).to_u8(), v);
        }
        assert_eq!(KeyInfo(0x0030).key_index(), 3);
    }
}
