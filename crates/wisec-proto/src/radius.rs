//! RADIUS as 802.1X uses it: Access-Requests that carry EAP (RFC 3579)
//! with a Message-Authenticator (RFC 2869, 5.14; RFC 3579, 3.2), the
//! checks a client makes on the answer (Identifier, Response
//! Authenticator, Message-Authenticator), the EAP-Message and State it
//! takes from it, and the keys of an Access-Accept: MS-MPPE-Recv-Key and
//! MS-MPPE-Send-Key (RFC 2548, 2.4.2 and 2.4.3), or Cisco's
//! `leap:session-key`. The server side (checking a request, building a
//! signed answer, hiding keys) serves the lab's LEAP server.
//!
//! Nothing here does I/O or allocates: packets are built in and read from
//! the caller's buffers.

use crate::rsn::Random;
use wisec_crypto::radius as rc;
use wisec_wire::radius::{
    AttrType, Code, Packet, PacketWriter, CISCO_AVPAIR, MS_MPPE_RECV_KEY, MS_MPPE_SEND_KEY,
    NAS_PORT_TYPE_80211, SERVICE_TYPE_FRAMED, VENDOR_CISCO, VENDOR_MICROSOFT,
};
use wisec_wire::MacAddr;
use zeroize::Zeroize;

pub use wisec_wire::radius::{HEADER_LEN, MAX_LEN};

/// Longest shared secret kept.
pub const SECRET_MAX: usize = 128;
/// Longest MSK taken from an Access-Accept (Recv-Key and Send-Key).
pub const MSK_MAX: usize = 128;
/// Longest State attribute kept.
pub const STATE_MAX: usize = 253;
/// The Framed-MTU an authenticator announces (RFC 3579, 2.2: the EAP
/// packets the server sends must fit the link): 1400, as hostapd.
pub const FRAMED_MTU: u32 = 1400;
/// The Cisco-AVPair prefix of a LEAP session key.
pub const LEAP_SESSION_KEY: &[u8] = b"leap:session-key=";

/// What is wrong with a RADIUS packet. A client silently discards such a
/// packet (RFC 2865, 3; RFC 3579, 3.2) and keeps waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RadiusError {
    /// Not a well-formed RADIUS packet.
    Malformed,
    /// A Code this end does not take here.
    UnexpectedCode,
    /// Its Identifier matches no outstanding request.
    UnknownIdentifier,
    /// The Response Authenticator does not verify (wrong shared secret or
    /// a forged answer).
    BadAuthenticator,
    /// It carries EAP but no Message-Authenticator (RFC 3579, 3.2).
    MissingMessageAuthenticator,
    /// The Message-Authenticator does not verify.
    BadMessageAuthenticator,
    /// A value does not fit the buffers of this implementation.
    TooLong,
}

impl core::fmt::Display for RadiusError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            RadiusError::Malformed => "malformed RADIUS packet",
            RadiusError::UnexpectedCode => "unexpected RADIUS code",
            RadiusError::UnknownIdentifier => "no request has this RADIUS identifier",
            RadiusError::BadAuthenticator => {
                "the Response Authenticator does not verify (wrong shared secret?)"
            }
            RadiusError::MissingMessageAuthenticator => {
                "EAP-Message without a Message-Authenticator"
            }
            RadiusError::BadMessageAuthenticator => {
                "the Message-Authenticator does not verify (wrong shared secret?)"
            }
            RadiusError::TooLong => "a RADIUS value is too long",
        })
    }
}

impl core::error::Error for RadiusError {}

impl From<wisec_wire::Error> for RadiusError {
    fn from(_: wisec_wire::Error) -> RadiusError {
        RadiusError::Malformed
    }
}

impl From<wisec_crypto::Error> for RadiusError {
    fn from(_: wisec_crypto::Error) -> RadiusError {
        RadiusError::Malformed
    }
}

/// 1 to `N` octets of key material in a fixed buffer, wiped on drop.
#[derive(Clone)]
struct KeyBytes<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> KeyBytes<N> {
    fn new(k: &[u8]) -> Option<KeyBytes<N>> {
        if k.is_empty() || k.len() > N {
            return None;
        }
        let mut bytes = [0u8; N];
        bytes[..k.len()].copy_from_slice(k);
        Some(KeyBytes {
            bytes,
            len: k.len(),
        })
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl<const N: usize> Drop for KeyBytes<N> {
    fn drop(&mut self) {
        self.bytes.zeroize();
    }
}

/// A RADIUS shared secret, wiped on drop.
#[derive(Clone)]
pub struct Secret(KeyBytes<SECRET_MAX>);

impl core::fmt::Debug for Secret {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Secret({} octets)", self.0.len)
    }
}

impl Secret {
    /// A secret of 1 to 128 octets.
    pub fn new(s: &[u8]) -> Option<Secret> {
        KeyBytes::new(s).map(Secret)
    }

    /// The secret.
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

/// RADIUS Identifiers in use on one client socket (RFC 2865, 3: an
/// Identifier identifies a request among those outstanding from one
/// source address and port), shared by every station's authenticator.
#[derive(Debug, Clone, Default)]
pub struct IdPool {
    used: [u64; 4],
    next: u8,
}

impl IdPool {
    /// An empty pool whose first Identifier is `first`.
    pub fn new(first: u8) -> IdPool {
        IdPool {
            used: [0; 4],
            next: first,
        }
    }

    /// A free Identifier, now in use; `None` when 256 are outstanding.
    pub fn allocate(&mut self) -> Option<u8> {
        for _ in 0..256 {
            let id = self.next;
            self.next = self.next.wrapping_add(1);
            let (w, b) = (usize::from(id / 64), id % 64);
            if self.used[w] & (1 << b) == 0 {
                self.used[w] |= 1 << b;
                return Some(id);
            }
        }
        None
    }

    /// Frees `id`.
    pub fn release(&mut self, id: u8) {
        self.used[usize::from(id / 64)] &= !(1 << (id % 64));
    }

    /// Whether `id` is in use.
    pub fn in_use(&self, id: u8) -> bool {
        self.used[usize::from(id / 64)] & (1 << (id % 64)) != 0
    }
}

/// What an authenticator says about itself in every Access-Request
/// (RFC 3580, 3).
#[derive(Debug, Clone, Copy)]
pub struct Nas<'a> {
    /// NAS-IP-Address.
    pub ip: [u8; 4],
    /// NAS-Identifier.
    pub identifier: &'a [u8],
    /// The BSSID, for Called-Station-Id (RFC 3580, 3.20:
    /// `00-10-A4-23-19-C0:SSID`).
    pub bssid: MacAddr,
    /// The SSID, for Called-Station-Id.
    pub ssid: &'a [u8],
}

/// `00-10-A4-23-19-C0`, the form of RFC 3580, 3.20 and 3.21.
fn station_id(mac: MacAddr, out: &mut [u8; 17]) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for (i, b) in mac.0.iter().enumerate() {
        out[3 * i] = HEX[usize::from(b >> 4)];
        out[3 * i + 1] = HEX[usize::from(b & 15)];
        if i < 5 {
            out[3 * i + 2] = b'-';
        }
    }
}

/// One Access-Request of an EAP exchange.
#[derive(Debug, Clone, Copy)]
pub struct AccessRequest<'a> {
    /// Identifier.
    pub identifier: u8,
    /// Request Authenticator (16 random octets, RFC 2865, 3).
    pub authenticator: [u8; 16],
    /// User-Name: the identity of the EAP-Response/Identity (RFC 3579,
    /// 2.1).
    pub user_name: &'a [u8],
    /// The EAP packet from the supplicant.
    pub eap: &'a [u8],
    /// The State of the Access-Challenge this answers, copied unchanged
    /// (RFC 2865, 5.24).
    pub state: Option<&'a [u8]>,
    /// The supplicant's address (Calling-Station-Id).
    pub station: MacAddr,
}

/// A fresh Request Authenticator.
pub fn request_authenticator(rng: &mut dyn Random) -> [u8; 16] {
    let mut a = [0u8; 16];
    rng.fill_bytes(&mut a);
    a
}

/// Builds an Access-Request carrying `req.eap` into `buf` (RFC 3579, 2.1
/// and 3.1): User-Name, NAS-IP-Address, NAS-Identifier, Called- and
/// Calling-Station-Id, NAS-Port-Type (IEEE 802.11), Service-Type
/// (Framed), Framed-MTU, the EAP packet over as many EAP-Message
/// attributes as it needs, State, and the Message-Authenticator over all
/// of it (RFC 3579, 3.2). Its length.
pub fn build_access_request(
    nas: &Nas<'_>,
    req: &AccessRequest<'_>,
    secret: &Secret,
    buf: &mut [u8],
) -> Result<usize, RadiusError> {
    let mut w = PacketWriter::new(Code::AccessRequest, req.identifier, &req.authenticator, buf)?;
    if !req.user_name.is_empty() {
        w.add(AttrType::USER_NAME, req.user_name)?;
    }
    w.add(AttrType::NAS_IP_ADDRESS, &nas.ip)?;
    if !nas.identifier.is_empty() {
        w.add(AttrType::NAS_IDENTIFIER, nas.identifier)?;
    }
    let mut called = [0u8; 17 + 1 + 32];
    let mut id = [0u8; 17];
    station_id(nas.bssid, &mut id);
    called[..17].copy_from_slice(&id);
    called[17] = b':';
    let ssid = nas.ssid.get(..nas.ssid.len().min(32)).unwrap_or(&[]);
    called[18..18 + ssid.len()].copy_from_slice(ssid);
    w.add(AttrType::CALLED_STATION_ID, &called[..18 + ssid.len()])?;
    station_id(req.station, &mut id);
    w.add(AttrType::CALLING_STATION_ID, &id)?;
    w.add_u32(AttrType::NAS_PORT_TYPE, NAS_PORT_TYPE_80211)?;
    w.add_u32(AttrType::SERVICE_TYPE, SERVICE_TYPE_FRAMED)?;
    w.add_u32(AttrType::FRAMED_MTU, FRAMED_MTU)?;
    w.add_split(AttrType::EAP_MESSAGE, req.eap)?;
    if let Some(s) = req.state {
        w.add(AttrType::STATE, s)?;
    }
    let ma = w.add(AttrType::MESSAGE_AUTHENTICATOR, &[0u8; 16])?;
    let n = w.finish();
    sign_message_authenticator(&mut buf[..n], &req.authenticator, ma, secret)?;
    Ok(n)
}

/// Writes the Message-Authenticator at `ma` of `packet`, computed with
/// `authenticator` in the Authenticator field.
fn sign_message_authenticator(
    packet: &mut [u8],
    authenticator: &[u8; 16],
    ma: usize,
    secret: &Secret,
) -> Result<(), RadiusError> {
    let mac = rc::message_authenticator(packet, authenticator, ma, secret.as_bytes())?;
    packet
        .get_mut(ma..ma + 16)
        .ok_or(RadiusError::Malformed)?
        .copy_from_slice(&mac);
    Ok(())
}

/// Checks the Message-Authenticator of `p` (computed with
/// `authenticator`), which is required when `p` carries EAP (RFC 3579,
/// 3.2) and must verify when present.
fn check_message_authenticator(
    p: &Packet<&[u8]>,
    authenticator: &[u8; 16],
    secret: &Secret,
) -> Result<(), RadiusError> {
    let mut mas = p
        .attributes()
        .filter(|a| a.attr_type == AttrType::MESSAGE_AUTHENTICATOR);
    let ma = mas.next();
    if mas.next().is_some() {
        return Err(RadiusError::Malformed);
    }
    let has_eap = p.attribute(AttrType::EAP_MESSAGE).is_some();
    match ma {
        None if has_eap => Err(RadiusError::MissingMessageAuthenticator),
        None => Ok(()),
        Some(a) if a.value.len() != 16 => Err(RadiusError::Malformed),
        Some(a) => {
            let want = rc::message_authenticator(
                p.as_bytes(),
                authenticator,
                a.value_offset,
                secret.as_bytes(),
            )?;
            if rc::authenticators_equal(&want, a.value) {
                Ok(())
            } else {
                Err(RadiusError::BadMessageAuthenticator)
            }
        }
    }
}

/// Checks `packet` as the answer to the request `identifier` /
/// `request_auth`: well formed, an Access-Accept, -Reject or -Challenge
/// with that Identifier, its Response Authenticator (RFC 2865, 3) and its
/// Message-Authenticator (RFC 3579, 3.2) verified. The checked packet.
pub fn verify_response<'p>(
    packet: &'p [u8],
    identifier: u8,
    request_auth: &[u8; 16],
    secret: &Secret,
) -> Result<Packet<&'p [u8]>, RadiusError> {
    let p = Packet::new_checked(packet)?;
    if !matches!(
        p.code(),
        Code::AccessAccept | Code::AccessReject | Code::AccessChallenge
    ) {
        return Err(RadiusError::UnexpectedCode);
    }
    if p.identifier() != identifier {
        return Err(RadiusError::UnknownIdentifier);
    }
    let want = rc::response_authenticator(p.as_bytes(), request_auth, secret.as_bytes())?;
    if !rc::authenticators_equal(&want, &p.authenticator()) {
        return Err(RadiusError::BadAuthenticator);
    }
    check_message_authenticator(&p, request_auth, secret)?;
    Ok(p)
}

/// Checks an Access-Request (or Status-Server) as a server: well formed,
/// and the Message-Authenticator, required with EAP, verifies (RFC 3579,
/// 3.2: a server silently discards one that does not).
pub fn verify_request<'p>(
    packet: &'p [u8],
    secret: &Secret,
) -> Result<Packet<&'p [u8]>, RadiusError> {
    let p = Packet::new_checked(packet)?;
    if !matches!(p.code(), Code::AccessRequest | Code::StatusServer) {
        return Err(RadiusError::UnexpectedCode);
    }
    let own = p.authenticator();
    check_message_authenticator(&p, &own, secret)?;
    if p.code() == Code::StatusServer && p.attribute(AttrType::MESSAGE_AUTHENTICATOR).is_none() {
        // RFC 5997, 3: Status-Server always carries one.
        return Err(RadiusError::MissingMessageAuthenticator);
    }
    Ok(p)
}

/// The EAP packet of `p`: its EAP-Message attributes joined in order
/// (RFC 3579, 3.1), written to `out`. `Ok(0)` when there is none.
pub fn eap_message(p: &Packet<&[u8]>, out: &mut [u8]) -> Result<usize, RadiusError> {
    let mut n = 0;
    for a in p
        .attributes()
        .filter(|a| a.attr_type == AttrType::EAP_MESSAGE)
    {
        let o = out
            .get_mut(n..n + a.value.len())
            .ok_or(RadiusError::TooLong)?;
        o.copy_from_slice(a.value);
        n += a.value.len();
    }
    Ok(n)
}

/// Keying material of an Access-Accept: the MSK as RFC 3748 and RFC 5216
/// define it for RADIUS (MS-MPPE-Recv-Key, then MS-MPPE-Send-Key), or a
/// LEAP session key. Wiped on drop.
#[derive(Clone)]
pub struct Msk(KeyBytes<MSK_MAX>);

impl core::fmt::Debug for Msk {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Msk({} octets)", self.0.len)
    }
}

impl Msk {
    /// An MSK of 1 to 128 octets.
    pub fn new(k: &[u8]) -> Option<Msk> {
        KeyBytes::new(k).map(Msk)
    }

    /// The key.
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }

    /// The PMK of an 802.1X AKM (IEEE Std 802.11-2020, 12.7.1.3): the
    /// first 256 bits of the MSK. A shorter key (LEAP's 16 octets) is
    /// padded with zeros, which for the HMAC-SHA1 PRF of AKM 1 is the very
    /// key wpa_supplicant uses when it runs the 4-way handshake with a
    /// 16-octet LEAP PMK (HMAC pads every key with zeros to its block).
    pub fn pmk(&self) -> [u8; 32] {
        let mut p = [0u8; 32];
        let k = self.as_bytes();
        let n = k.len().min(32);
        p[..n].copy_from_slice(&k[..n]);
        p
    }
}

/// The MSK an Access-Accept carries for the request with `request_auth`:
/// MS-MPPE-Recv-Key followed by MS-MPPE-Send-Key (RFC 2548; the order of
/// RFC 5216, 2.3 and hostapd), or Cisco's `leap:session-key`, decrypted
/// with the shared secret. `None` when it carries no key (EAP-MD5).
pub fn accept_msk(p: &Packet<&[u8]>, request_auth: &[u8; 16], secret: &Secret) -> Option<Msk> {
    let mut out = [0u8; MSK_MAX];
    let mut n = 0;
    for t in [MS_MPPE_RECV_KEY, MS_MPPE_SEND_KEY] {
        if let Some(v) = p.vendor_attribute(VENDOR_MICROSOFT, t) {
            let k = rc::mppe_decrypt(v, request_auth, secret.as_bytes(), &mut out[n..]).ok()?;
            n += k;
        }
    }
    if n == 0 {
        let v = p
            .attributes()
            .filter_map(|a| a.vendor_specific())
            .filter(|(v, _)| *v == VENDOR_CISCO)
            .flat_map(|(_, rest)| wisec_wire::radius::vendor_attributes(rest))
            .find(|(t, v)| *t == CISCO_AVPAIR && v.starts_with(LEAP_SESSION_KEY))
            .map(|(_, v)| &v[LEAP_SESSION_KEY.len()..])?;
        n = rc::mppe_decrypt(v, request_auth, secret.as_bytes(), &mut out).ok()?;
    }
    let m = Msk::new(&out[..n]);
    out.zeroize();
    m
}

/// Builds a signed answer (Access-Accept, -Reject or -Challenge) to the
/// request `req` in `buf`: `attrs` adds the attributes (a
/// Message-Authenticator is added after them when `eap` is given or
/// `always_ma`), then the Message-Authenticator and the Response
/// Authenticator are computed (RFC 3579, 3.2; RFC 2865, 3). `eap` goes in
/// EAP-Message attributes. Its length.
pub fn build_response(
    code: Code,
    req: &Packet<&[u8]>,
    eap: Option<&[u8]>,
    secret: &Secret,
    buf: &mut [u8],
    attrs: impl FnOnce(&mut PacketWriter<'_>) -> Result<(), RadiusError>,
) -> Result<usize, RadiusError> {
    let ra = req.authenticator();
    let mut w = PacketWriter::new(code, req.identifier(), &ra, buf)?;
    if let Some(e) = eap {
        w.add_split(AttrType::EAP_MESSAGE, e)?;
    }
    attrs(&mut w)?;
    let ma = w.add(AttrType::MESSAGE_AUTHENTICATOR, &[0u8; 16])?;
    let n = w.finish();
    sign_message_authenticator(&mut buf[..n], &ra, ma, secret)?;
    let resp = rc::response_authenticator(&buf[..n], &ra, secret.as_bytes())?;
    buf[4..20].copy_from_slice(&resp);
    Ok(n)
}

/// Adds `key` hidden as MS-MPPE-`vendor_type` (RFC 2548, 2.4.2) for the
/// request with `request_auth`, with `salt`.
pub fn add_mppe_key(
    w: &mut PacketWriter<'_>,
    vendor_type: u8,
    key: &[u8],
    salt: [u8; 2],
    request_auth: &[u8; 16],
    secret: &Secret,
) -> Result<(), RadiusError> {
    let mut v = [0u8; 256];
    let n = rc::mppe_encrypt(key, salt, request_auth, secret.as_bytes(), &mut v)?;
    let r = w.add_vendor(VENDOR_MICROSOFT, vendor_type, &v[..n]);
    v.zeroize();
    r.map(drop).map_err(RadiusError::from)
}

/// Adds a LEAP session key as Cisco's `leap:session-key` AV pair: the
/// prefix, then the key hidden as an MS-MPPE key is (the encoding of
/// FreeRADIUS 2's rlm_eap_leap and of Cisco's servers; 17 + 34 octets for
/// a 16-octet key).
pub fn add_leap_session_key(
    w: &mut PacketWriter<'_>,
    key: &[u8],
    salt: [u8; 2],
    request_auth: &[u8; 16],
    secret: &Secret,
) -> Result<(), RadiusError> {
    let mut v = [0u8; 256];
    let p = LEAP_SESSION_KEY.len();
    v[..p].copy_from_slice(LEAP_SESSION_KEY);
    let n = rc::mppe_encrypt(key, salt, request_auth, secret.as_bytes(), &mut v[p..])?;
    let r = w.add_vendor(VENDOR_CISCO, CISCO_AVPAIR, &v[..p + n]);
    v.zeroize();
    r.map(drop).map_err(RadiusError::from)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    struct Counter(u8);
    impl Random for Counter {
        fn fill_bytes(&mut self, d: &mut [u8]) {
            for b in d {
                self.0 = self.0.wrapping_add(1);
                *b = self.0;
            }
        }
    }

    fn nas() -> Nas<'static> {
        Nas {
            ip: [10, 99, 0, 254],
            identifier: b"ap",
            bssid: MacAddr([0x02, 0x1a, 0xb0, 0, 0, 1]),
            ssid: b"wisec-lab",
        }
    }

    #[test]
    fn ids_are_unique_until_released() {
        let mut p = IdPool::new(250);
        let v: Vec<u8> = (0..256).map(|_| p.allocate().unwrap()).collect();
        assert_eq!(v[0], 250);
        assert_eq!(v[6], 0);
        assert!(p.allocate().is_none());
        p.release(17);
        assert!(!p.in_use(17));
        assert_eq!(p.allocate(), Some(17));
    }

    /// A request the client builds verifies as a server checks it, and an
    /// answer the server builds verifies as the client checks it; any
    /// change of octet or secret is caught.
    #[test]
    fn requests_and_answers_verify_both_ways() {
        let secret = Secret::new(b"wisec-lab-secret").unwrap();
        let eap = [2u8, 1, 0, 10, 1, b'a', b'l', b'i', b'c', b'e'];
        let ra = request_authenticator(&mut Counter(0));
        let req = AccessRequest {
            identifier: 42,
            authenticator: ra,
            user_name: b"alice",
            eap: &eap,
            state: Some(b"st"),
            station: MacAddr([2, 0x1a, 0xb0, 0, 1, 1]),
        };
        let mut buf = [0u8; 512];
        let n = build_access_request(&nas(), &req, &secret, &mut buf).unwrap();
        let p = verify_request(&buf[..n], &secret).unwrap();
        assert_eq!(
            p.attribute(AttrType::CALLED_STATION_ID).unwrap().value,
            b"02-1A-B0-00-00-01:wisec-lab"
        );
        assert_eq!(
            p.attribute(AttrType::CALLING_STATION_ID).unwrap().value,
            b"02-1A-B0-00-01-01"
        );
        let mut e = [0u8; 64];
        let k = eap_message(&p, &mut e).unwrap();
        assert_eq!(&e[..k], &eap);
        let wrong = Secret::new(b"wisec-lab-secreT").unwrap();
        assert_eq!(
            verify_request(&buf[..n], &wrong).err(),
            Some(RadiusError::BadMessageAuthenticator)
        );

        let mut out = [0u8; 512];
        let msk: Vec<u8> = (0..64).collect();
        let m = build_response(
            Code::AccessAccept,
            &p,
            Some(&[3, 9, 0, 4]),
            &secret,
            &mut out,
            |w| {
                add_mppe_key(w, MS_MPPE_RECV_KEY, &msk[..32], [1, 2], &ra, &secret)?;
                add_mppe_key(w, MS_MPPE_SEND_KEY, &msk[32..], [3, 4], &ra, &secret)
            },
        )
        .unwrap();
        let r = verify_response(&out[..m], 42, &ra, &secret).unwrap();
        assert_eq!(r.code(), Code::AccessAccept);
        assert_eq!(accept_msk(&r, &ra, &secret).unwrap().as_bytes(), &msk[..]);
        assert_eq!(
            verify_response(&out[..m], 43, &ra, &secret).err(),
            Some(RadiusError::UnknownIdentifier)
        );
        assert_eq!(
            verify_response(&out[..m], 42, &ra, &wrong).err(),
            Some(RadiusError::BadAuthenticator)
        );
        for i in [0usize, 5, 25, m - 1] {
            let mut bad = out;
            bad[i] ^= 0x40;
            assert!(verify_response(&bad[..m], 42, &ra, &secret).is_err(), "{i}");
        }
    }

    #[test]
    fn leap_session_keys_travel_as_cisco_av_pairs() {
        let secret = Secret::new(b"s").unwrap();
        let mut buf = [0u8; 512];
        let n = build_access_request(
            &nas(),
            &AccessRequest {
                identifier: 1,
                authenticator: [9; 16],
                user_name: b"u",
                eap: &[2, 1, 0, 5, 1],
                state: None,
                station: MacAddr([2, 0, 0, 0, 0, 1]),
            },
            &secret,
            &mut buf,
        )
        .unwrap();
        let p = verify_request(&buf[..n], &secret).unwrap();
        let key = [0x5au8; 16];
        let mut out = [0u8; 512];
        let m = build_response(Code::AccessAccept, &p, None, &secret, &mut out, |w| {
            add_leap_session_key(w, &key, [0, 1], &[9; 16], &secret)
        })
        .unwrap();
        let r = verify_response(&out[..m], 1, &[9; 16], &secret).unwrap();
        let v = r.vendor_attribute(VENDOR_CISCO, CISCO_AVPAIR).unwrap();
        assert_eq!(v.len(), 17 + 34, "the length rlm_eap and hostapd expect");
        let msk = accept_msk(&r, &[9; 16], &secret).unwrap();
        assert_eq!(msk.as_bytes(), &key);
        let mut pmk = [0u8; 32];
        pmk[..16].copy_from_slice(&key);
        assert_eq!(msk.pmk(), pmk);
    }

    #[test]
    fn eap_without_message_authenticator_is_discarded() {
        let secret = Secret::new(b"s").unwrap();
        let mut buf = [0u8; 128];
        let mut w = PacketWriter::new(Code::AccessRequest, 1, &[1; 16], &mut buf).unwrap();
        w.add(AttrType::EAP_MESSAGE, &[2, 1, 0, 5, 1]).unwrap();
        let n = w.finish();
        assert_eq!(
            verify_request(&buf[..n], &secret).err(),
            Some(RadiusError::MissingMessageAuthenticator)
        );
    }
}
