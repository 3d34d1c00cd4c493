//! Zero-copy views and owned representations of IEEE 802.11 frames.
//!
//! Every view follows one pattern: `View<T: AsRef<[u8]>> { buffer: T }` with
//! `new_unchecked`, `check_len`, `new_checked` and `into_inner`. After
//! `new_checked` succeeded no accessor panics. Parsing into owned values is a
//! `Repr` with `parse`, `buffer_len` and `emit`.
//!
//! Modules: [`frame_control`], [`mac_header`], [`data`] (data MPDUs and the
//! MSDU to MPDU step), [`discosec`] (DiscoSec elements), [`mgmt`]
//! (management frames), [`element`] (element
//! walking, RSNE, WPA, vendor elements, MME), [`security`] (WEP/TKIP/CCMP/GCMP
//! headers), [`llc`] (LLC/SNAP), [`eapol`] (EAPOL and EAPOL-Key), [`eap`]
//! (EAP packets), [`radius`] (RADIUS packets, RFC 2865) and [`radiotap`].
//!
//! Clause numbers refer to IEEE Std 802.11-2020 unless stated otherwise.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod bytes;
pub mod data;
pub mod discosec;
pub mod eap;
pub mod eapol;
pub mod element;
pub mod frame_control;
pub mod llc;
pub mod mac_header;
pub mod mgmt;
pub mod radiotap;
pub mod radius;
pub mod security;

pub use data::{Addressing, DataBody, DataFrame, DataFrameRepr};
pub use eapol::{
    EapolFrame, Kde, KdeType, KeyDataItem, KeyDataIter, KeyDescriptor, KeyDescriptorVersion,
    KeyFrame, KeyFrameRepr, KeyInfo, PacketType as EapolPacketType,
};
pub use element::{
    Akm, CipherSuite, Element, ElementId, ElementWriter, Elements, List, Mme, MmeRepr, Pmkid, Rate,
    RsnCapabilities, Rsne, VendorElement, WpaElement,
};
pub use frame_control::{FrameControl, FrameType};
pub use llc::{EtherType, SnapHeader, SnapRepr};
pub use mac_header::{Header, HeaderRepr};
pub use mgmt::{
    ActionCategory, AuthAlgorithm, BeaconFields, CapabilityInfo, MgmtBody, MgmtFrame,
    MgmtFrameRepr, MgmtSubtype, ReasonCode, StatusCode,
};
pub use radiotap::{Channel as RadiotapChannel, Radiotap, RadiotapFlags, RadiotapRepr};
pub use security::{CcmpHeader, GcmpHeader, TkipHeader, WepHeader};

use core::fmt;

/// The error of every view and `Repr` in this crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Error {
    /// The buffer ends before the structure it should hold.
    Truncated,
    /// A field holds a value the structure cannot have.
    Malformed,
    /// A valid structure this crate does not handle (a reserved type, a
    /// protocol version other than 0).
    Unsupported,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Error::Truncated => "truncated",
            Error::Malformed => "malformed",
            Error::Unsupported => "unsupported",
        })
    }
}

impl core::error::Error for Error {}

/// The result type of this crate.
pub type Result<T> = core::result::Result<T, Error>;

/// A 48-bit IEEE MAC address.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct MacAddr(pub [u8; 6]);

impl MacAddr {
    /// The broadcast address ff:ff:ff:ff:ff:ff.
    pub const BROADCAST: MacAddr = MacAddr([0xff; 6]);

    /// Reads an address from the first six bytes of `bytes`.
    ///
    /// Returns `None` if `bytes` is shorter than six bytes.
    pub fn from_bytes(bytes: &[u8]) -> Option<MacAddr> {
        let a: [u8; 6] = bytes.get(..6)?.try_into().ok()?;
        Some(MacAddr(a))
    }

    /// The six address bytes.
    pub const fn as_bytes(&self) -> &[u8; 6] {
        &self.0
    }

    /// True for a group (multicast or broadcast) address: the I/G bit is set.
    pub const fn is_group(&self) -> bool {
        self.0[0] & 0x01 != 0
    }

    /// True for the broadcast address.
    pub fn is_broadcast(&self) -> bool {
        *self == Self::BROADCAST
    }
}

impl fmt::Display for MacAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = &self.0;
        write!(
            f,
            "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
            a[0], a[1], a[2], a[3], a[4], a[5]
        )
    }
}

impl fmt::Debug for MacAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl core::str::FromStr for MacAddr {
    type Err = Error;

    /// Parses `aa:bb:cc:dd:ee:ff` (also with `-` separators or none).
    fn from_str(s: &str) -> Result<MacAddr> {
        let mut out = [0u8; 6];
        let hex: heapless_hex::Digits = heapless_hex::Digits::from_str_skipping(s, b":-")?;
        if hex.len != 12 {
            return Err(Error::Malformed);
        }
        for (i, o) in out.iter_mut().enumerate() {
            *o = (hex.digits[2 * i] << 4) | hex.digits[2 * i + 1];
        }
        Ok(MacAddr(out))
    }
}

mod heapless_hex {
    use super::Error;

    pub struct Digits {
        pub digits: [u8; 12],
        pub len: usize,
    }

    impl Digits {
        pub fn from_str_skipping(s: &str, skip: &[u8]) -> Result<Digits, Error> {
            let mut d = Digits {
                digits: [0; 12],
                len: 0,
            };
            for &c in s.as_bytes() {
                if skip.contains(&c) {
                    continue;
                }
                let v = match c {
                    b'0'..=b'9' => c - b'0',
                    b'a'..=b'f' => c - b'a' + 10,
                    b'A'..=b'F' => c - b'A' + 10,
                    _ => return Err(Error::Malformed),
                };
                if d.len == 12 {
                    return Err(Error::Malformed);
                }
                d.digits[d.len] = v;
                d.len += 1;
            }
            Ok(d)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mac_addr_parse_and_display() {
        let a: MacAddr = "02:00:5e:10:00:01".parse().unwrap();
        assert_eq!(a.0, [0x02, 0x00, 0x5e, 0x10, 0x00, 0x01]);
        assert_eq!(
            format_args!("{a}").to_string_in(&mut [0u8; 17]),
            "02:00:5e:10:00:01"
        );
        assert_eq!("02-00-5E-10-00-01".parse::<MacAddr>().unwrap(), a);
        assert!("02:00:5e:10:00".parse::<MacAddr>().is_err());
        assert!("02:00:5e:10:00:0g".parse::<MacAddr>().is_err());
        assert!("02:00:5e:10:00:01:02".parse::<MacAddr>().is_err());
        assert!(MacAddr::BROADCAST.is_group());
        assert!(!a.is_group());
    }

    trait ToStringIn {
        fn to_string_in<'a>(&self, buf: &'a mut [u8]) -> &'a str;
    }

    impl ToStringIn for fmt::Arguments<'_> {
        fn to_string_in<'a>(&self, buf: &'a mut [u8]) -> &'a str {
            struct W<'b> {
                buf: &'b mut [u8],
                n: usize,
            }
            impl fmt::Write for W<'_> {
                fn write_str(&mut self, s: &str) -> fmt::Result {
                    let end = self.n + s.len();
                    self.buf
                        .get_mut(self.n..end)
                        .ok_or(fmt::Error)?
                        .copy_from_slice(s.as_bytes());
                    self.n = end;
                    Ok(())
                }
            }
            let mut w = W { buf, n: 0 };
            fmt::write(&mut w, *self).unwrap();
            let n = w.n;
            core::str::from_utf8(&w.buf[..n]).unwrap()
        }
    }
}
