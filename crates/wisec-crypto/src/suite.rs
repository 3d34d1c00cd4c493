//! Cipher suites by name and selector, and dispatch over them.
//!
//! [`Suite`] names every suite of this crate with the short names a user
//! types (`ccmp`, `gcmp256`, `bip-cmac128`, ...), the key length it takes,
//! the bytes it adds to a frame and its suite selector under the IEEE OUI
//! 00-0F-AC (IEEE Std 802.11-2020, 9.4.2.24.2, Table 9-149).
//!
//! [`DataKey`] holds a temporal key of any data-frame suite and implements
//! [`FrameProtector`] by dispatching to it; [`BipKey`] does the same for the
//! broadcast/multicast integrity protocol suites.

use crate::Overhead;
use core::fmt;
use core::str::FromStr;

/// The IEEE 802.11 OUI under which the standard cipher suites are numbered.
pub const IEEE_OUI: [u8; 3] = [0x00, 0x0f, 0xac];

/// A cipher suite of IEEE Std 802.11-2020, clause 12.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suite {
    /// WEP with a 40-bit key (12.3.2). Broken; for old captures only.
    Wep40,
    /// WEP with a 104-bit key (12.3.2). Broken; for old captures only.
    Wep104,
    /// TKIP (12.5.2). Deprecated.
    Tkip,
    /// CCMP-128 (12.5.3), the RSN default.
    Ccmp128,
    /// CCMP-256 (12.5.3).
    Ccmp256,
    /// GCMP-128 (12.5.5).
    Gcmp128,
    /// GCMP-256 (12.5.5).
    Gcmp256,
    /// BIP-CMAC-128 (12.5.4), the default group management suite.
    BipCmac128,
    /// BIP-CMAC-256 (12.5.4).
    BipCmac256,
    /// BIP-GMAC-128 (12.5.4).
    BipGmac128,
    /// BIP-GMAC-256 (12.5.4).
    BipGmac256,
}

impl Suite {
    /// Every suite, data suites first.
    pub const ALL: [Suite; 11] = [
        Suite::Wep40,
        Suite::Wep104,
        Suite::Tkip,
        Suite::Ccmp128,
        Suite::Ccmp256,
        Suite::Gcmp128,
        Suite::Gcmp256,
        Suite::BipCmac128,
        Suite::BipCmac256,
        Suite::BipGmac128,
        Suite::BipGmac256,
    ];

    /// The canonical short name, as [`FromStr`] accepts it.
    pub const fn name(self) -> &'static str {
        match self {
            Suite::Wep40 => "wep40",
            Suite::Wep104 => "wep104",
            Suite::Tkip => "tkip",
            Suite::Ccmp128 => "ccmp128",
            Suite::Ccmp256 => "ccmp256",
            Suite::Gcmp128 => "gcmp128",
            Suite::Gcmp256 => "gcmp256",
            Suite::BipCmac128 => "bip-cmac128",
            Suite::BipCmac256 => "bip-cmac256",
            Suite::BipGmac128 => "bip-gmac128",
            Suite::BipGmac256 => "bip-gmac256",
        }
    }

    /// The name the standard uses (`CCMP-128`, `BIP-GMAC-256`, ...).
    pub const fn standard_name(self) -> &'static str {
        match self {
            Suite::Wep40 => "WEP-40",
            Suite::Wep104 => "WEP-104",
            Suite::Tkip => "TKIP",
            Suite::Ccmp128 => "CCMP-128",
            Suite::Ccmp256 => "CCMP-256",
            Suite::Gcmp128 => "GCMP-128",
            Suite::Gcmp256 => "GCMP-256",
            Suite::BipCmac128 => "BIP-CMAC-128",
            Suite::BipCmac256 => "BIP-CMAC-256",
            Suite::BipGmac128 => "BIP-GMAC-128",
            Suite::BipGmac256 => "BIP-GMAC-256",
        }
    }

    /// The suite type under [`IEEE_OUI`] (Table 9-149).
    pub const fn selector(self) -> u8 {
        match self {
            Suite::Wep40 => 1,
            Suite::Tkip => 2,
            Suite::Ccmp128 => 4,
            Suite::Wep104 => 5,
            Suite::BipCmac128 => 6,
            Suite::Gcmp128 => 8,
            Suite::Gcmp256 => 9,
            Suite::Ccmp256 => 10,
            Suite::BipGmac128 => 11,
            Suite::BipGmac256 => 12,
            Suite::BipCmac256 => 13,
        }
    }

    /// The suite of a selector under [`IEEE_OUI`]; `None` for values that
    /// name no suite of this crate (0 "use group cipher", 7 "group
    /// addressed traffic not allowed", reserved values).
    pub const fn from_selector(selector: u8) -> Option<Suite> {
        Some(match selector {
            1 => Suite::Wep40,
            2 => Suite::Tkip,
            4 => Suite::Ccmp128,
            5 => Suite::Wep104,
            6 => Suite::BipCmac128,
            8 => Suite::Gcmp128,
            9 => Suite::Gcmp256,
            10 => Suite::Ccmp256,
            11 => Suite::BipGmac128,
            12 => Suite::BipGmac256,
            13 => Suite::BipCmac256,
            _ => return None,
        })
    }

    /// The four-byte suite selector as it appears in an RSNE.
    pub const fn selector_bytes(self) -> [u8; 4] {
        [IEEE_OUI[0], IEEE_OUI[1], IEEE_OUI[2], self.selector()]
    }

    /// Key length in bytes (Table 12-4). TKIP's 32 bytes are the 16-byte
    /// temporal key followed by the two 8-byte Michael keys (12.8.1).
    pub const fn key_len(self) -> usize {
        match self {
            Suite::Wep40 => 5,
            Suite::Wep104 => 13,
            Suite::Ccmp128 | Suite::Gcmp128 | Suite::BipCmac128 | Suite::BipGmac128 => 16,
            Suite::Tkip
            | Suite::Ccmp256
            | Suite::Gcmp256
            | Suite::BipCmac256
            | Suite::BipGmac256 => 32,
        }
    }

    /// Bytes the suite adds to an MPDU. For BIP this is the Management MIC
    /// element appended to the body (9.4.2.54).
    pub const fn overhead(self) -> Overhead {
        let (header, trailer) = match self {
            // IV + Key ID, ICV (12.3.2.2).
            Suite::Wep40 | Suite::Wep104 => (4, 4),
            // IV/Extended IV, Michael MIC (in the MSDU) + ICV (12.5.2.2).
            Suite::Tkip => (8, 12),
            // CCMP header, 8- or 16-byte MIC (12.5.3.2).
            Suite::Ccmp128 => (8, 8),
            Suite::Ccmp256 => (8, 16),
            // GCMP header, 16-byte MIC (12.5.5.2).
            Suite::Gcmp128 | Suite::Gcmp256 => (8, 16),
            // MME: ID, length, Key ID (2), IPN (6), MIC (8 or 16).
            Suite::BipCmac128 => (0, 18),
            Suite::BipCmac256 | Suite::BipGmac128 | Suite::BipGmac256 => (0, 26),
        };
        Overhead { header, trailer }
    }

    /// True for the suites that protect data frames (and, for CCMP/GCMP,
    /// individually addressed robust management frames).
    pub const fn is_data(self) -> bool {
        !self.is_bip()
    }

    /// True for the broadcast/multicast integrity protocol suites.
    pub const fn is_bip(self) -> bool {
        matches!(
            self,
            Suite::BipCmac128 | Suite::BipCmac256 | Suite::BipGmac128 | Suite::BipGmac256
        )
    }

    /// True for the suites that can protect management frames (12.2.8):
    /// CCMP and GCMP.
    pub const fn protects_mgmt(self) -> bool {
        matches!(
            self,
            Suite::Ccmp128 | Suite::Ccmp256 | Suite::Gcmp128 | Suite::Gcmp256
        )
    }

    /// True for WEP and TKIP, which no new network should use.
    pub const fn is_danger(self) -> bool {
        matches!(self, Suite::Wep40 | Suite::Wep104 | Suite::Tkip)
    }

    /// The group management cipher that WPA3 pairs with this pairwise
    /// suite: BIP-CMAC-128 for CCMP-128 and legacy suites, BIP-CMAC-256 for
    /// CCMP-256, BIP-GMAC-128/256 for GCMP-128/256.
    pub const fn matching_bip(self) -> Suite {
        match self {
            Suite::Ccmp256 => Suite::BipCmac256,
            Suite::Gcmp128 => Suite::BipGmac128,
            Suite::Gcmp256 => Suite::BipGmac256,
            Suite::BipCmac256 | Suite::BipGmac128 | Suite::BipGmac256 => self,
            _ => Suite::BipCmac128,
        }
    }

    /// The data suites a temporal key of `len` bytes may belong to, in the
    /// order a receiver that does not know the suite tries them. WEP is not
    /// listed: its frames are recognised by the clear ExtIV bit.
    pub fn data_suites_for_key_len(len: usize) -> &'static [Suite] {
        match len {
            16 => &[Suite::Ccmp128, Suite::Gcmp128],
            32 => &[Suite::Tkip, Suite::Ccmp256, Suite::Gcmp256],
            _ => &[],
        }
    }

    /// The BIP suites an IGTK of `len` bytes may belong to.
    pub fn bip_suites_for_key_len(len: usize) -> &'static [Suite] {
        match len {
            16 => &[Suite::BipCmac128, Suite::BipGmac128],
            32 => &[Suite::BipCmac256, Suite::BipGmac256],
            _ => &[],
        }
    }
}

impl fmt::Display for Suite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A string that names no suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownSuite;

impl fmt::Display for UnknownSuite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "unknown cipher suite (expected wep40, wep104, tkip, ccmp, ccmp256, gcmp, \
             gcmp256, bip-cmac128, bip-cmac256, bip-gmac128 or bip-gmac256)",
        )
    }
}

impl core::error::Error for UnknownSuite {}

impl FromStr for Suite {
    type Err = UnknownSuite;

    /// Parses a suite name, ignoring ASCII case and the dashes and
    /// underscores people put in names: `ccmp`, `CCMP-128`, `gcmp_256`,
    /// `bip-cmac128`, `BIP-CMAC-128`, `bip` (BIP-CMAC-128).
    fn from_str(s: &str) -> core::result::Result<Suite, UnknownSuite> {
        let mut buf = [0u8; 16];
        let mut n = 0;
        for &c in s.as_bytes() {
            if c == b'-' || c == b'_' {
                continue;
            }
            let slot = buf.get_mut(n).ok_or(UnknownSuite)?;
            *slot = c.to_ascii_lowercase();
            n += 1;
        }
        let key = buf.get(..n).ok_or(UnknownSuite)?;
        Ok(match key {
            b"wep40" | b"wep64" => Suite::Wep40,
            b"wep104" | b"wep128" => Suite::Wep104,
            b"tkip" => Suite::Tkip,
            b"ccmp" | b"ccmp128" => Suite::Ccmp128,
            b"ccmp256" => Suite::Ccmp256,
            b"gcmp" | b"gcmp128" => Suite::Gcmp128,
            b"gcmp256" => Suite::Gcmp256,
            b"bip" | b"bipcmac" | b"bipcmac128" => Suite::BipCmac128,
            b"bipcmac256" => Suite::BipCmac256,
            b"bipgmac" | b"bipgmac128" => Suite::BipGmac128,
            b"bipgmac256" => Suite::BipGmac256,
            _ => return Err(UnknownSuite),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in Suite::ALL {
            assert_eq!(s.name().parse::<Suite>(), Ok(s));
            assert_eq!(s.standard_name().parse::<Suite>(), Ok(s));
        }
        assert_eq!("ccmp".parse(), Ok(Suite::Ccmp128));
        assert_eq!("GCMP".parse(), Ok(Suite::Gcmp128));
        assert_eq!("gcmp_256".parse(), Ok(Suite::Gcmp256));
        assert_eq!("bip".parse(), Ok(Suite::BipCmac128));
        assert_eq!("ccmp512".parse::<Suite>(), Err(UnknownSuite));
        assert_eq!("".parse::<Suite>(), Err(UnknownSuite));
        assert_eq!("c".repeat(40).parse::<Suite>(), Err(UnknownSuite));
    }

    #[test]
    fn selectors_match_table_9_149() {
        // IEEE Std 802.11-2020, Table 9-149: 00-0F-AC:1 WEP-40, :2 TKIP,
        // :4 CCMP-128, :5 WEP-104, :6 BIP-CMAC-128, :8 GCMP-128,
        // :9 GCMP-256, :10 CCMP-256, :11 BIP-GMAC-128, :12 BIP-GMAC-256,
        // :13 BIP-CMAC-256.
        let table = [
            (1, "WEP-40"),
            (2, "TKIP"),
            (4, "CCMP-128"),
            (5, "WEP-104"),
            (6, "BIP-CMAC-128"),
            (8, "GCMP-128"),
            (9, "GCMP-256"),
            (10, "CCMP-256"),
            (11, "BIP-GMAC-128"),
            (12, "BIP-GMAC-256"),
            (13, "BIP-CMAC-256"),
        ];
        for (sel, name) in table {
            let s = Suite::from_selector(sel).unwrap();
            assert_eq!(s.standard_name(), name);
            assert_eq!(s.selector(), sel);
            assert_eq!(s.selector_bytes(), [0x00, 0x0f, 0xac, sel]);
        }
        for sel in [0, 3, 7, 14, 255] {
            assert_eq!(Suite::from_selector(sel), None);
        }
    }

    #[test]
    fn key_lengths_and_overheads() {
        // Table 12-4 key lengths; MIC lengths from 12.5.3.2 (CCMP-128: 8,
        // CCMP-256: 16), 12.5.5.2 (GCMP: 16), 9.4.2.54 (MME).
        assert_eq!(Suite::Wep40.key_len(), 5);
        assert_eq!(Suite::Wep104.key_len(), 13);
        assert_eq!(Suite::Tkip.key_len(), 32);
        assert_eq!(Suite::Ccmp128.overhead().total(), 16);
        assert_eq!(Suite::Ccmp256.overhead().total(), 24);
        assert_eq!(Suite::Gcmp128.overhead().total(), 24);
        assert_eq!(Suite::Tkip.overhead().total(), 20);
        assert_eq!(Suite::Wep40.overhead().total(), 8);
        assert_eq!(Suite::BipCmac128.overhead().total(), 18);
        assert_eq!(Suite::BipGmac256.overhead().total(), 26);
        assert_eq!(
            Suite::data_suites_for_key_len(16),
            &[Suite::Ccmp128, Suite::Gcmp128]
        );
        assert!(Suite::data_suites_for_key_len(13).is_empty());
    }
}
