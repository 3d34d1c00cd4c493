//! Data frames (IEEE Std 802.11-2020, 9.3.2): Data, QoS Data and the Null
//! subtypes, as a view over a whole MPDU (without FCS) and as a `Repr` that
//! builds an MPDU from a MAC header and an MSDU behind LLC/SNAP.

use crate::frame_control::{data_subtype, FrameControl, FrameType};
use crate::llc::{EtherType, SnapHeader, SnapRepr, SNAP_HEADER_LEN};
use crate::mac_header::{Header, HeaderRepr};
use crate::{Error, MacAddr, Result};

/// QoS Control bit 7: A-MSDU Present (9.2.4.5.9).
const QOS_AMSDU_PRESENT: u16 = 1 << 7;
/// QoS Control bit 4: EOSP (9.2.4.5.3).
const QOS_EOSP: u16 = 1 << 4;

/// A view over a data MPDU: MAC header, then the frame body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataFrame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> DataFrame<T> {
    /// Wraps a buffer without checking it; accessors never panic but may
    /// return zeroes for a short buffer.
    pub const fn new_unchecked(buffer: T) -> DataFrame<T> {
        DataFrame { buffer }
    }

    /// Wraps a buffer after [`DataFrame::check_len`].
    pub fn new_checked(buffer: T) -> Result<DataFrame<T>> {
        let f = DataFrame::new_unchecked(buffer);
        f.check_len()?;
        Ok(f)
    }

    /// Checks that the buffer starts with a whole data frame header.
    /// Another frame type is `Malformed`.
    pub fn check_len(&self) -> Result<()> {
        let h = Header::new_checked(self.buffer.as_ref())?;
        if !h.frame_control().is_data() {
            return Err(Error::Malformed);
        }
        Ok(())
    }

    /// Returns the underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The whole MPDU.
    pub fn as_bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// The MAC header view.
    pub fn header(&self) -> Header<&[u8]> {
        Header::new_unchecked(self.buffer.as_ref())
    }

    /// Frame Control (zero if the buffer is too short).
    pub fn frame_control(&self) -> FrameControl {
        match self.buffer.as_ref() {
            [a, b, ..] => FrameControl::from_bytes([*a, *b]),
            _ => FrameControl(0),
        }
    }

    /// Length of the MAC header.
    pub fn header_len(&self) -> usize {
        crate::mac_header::header_len(self.frame_control())
            .unwrap_or(0)
            .min(self.buffer.as_ref().len())
    }

    /// The frame body (for a protected frame: security header, ciphertext
    /// and MIC).
    pub fn body(&self) -> &[u8] {
        self.buffer.as_ref().get(self.header_len()..).unwrap_or(&[])
    }

    /// QoS Control, for QoS subtypes.
    pub fn qos_control(&self) -> Option<u16> {
        let fc = self.frame_control();
        if !fc.is_qos_data() {
            return None;
        }
        let off = if fc.has_addr4() { 30 } else { 24 };
        crate::bytes::u16_le(self.buffer.as_ref(), off)
    }

    /// The TID (QoS Control bits 0..=3), 0 for non-QoS frames.
    pub fn tid(&self) -> u8 {
        self.qos_control().map_or(0, |q| (q & 0xf) as u8)
    }

    /// The A-MSDU Present bit of QoS Control: the body is an A-MSDU.
    pub fn amsdu_present(&self) -> bool {
        self.qos_control()
            .is_some_and(|q| q & QOS_AMSDU_PRESENT != 0)
    }

    /// True for the subtypes that carry no frame body (Null, QoS Null,
    /// CF-Poll variants: subtype bit 2).
    pub fn is_null(&self) -> bool {
        self.frame_control().is_null_data()
    }

    /// True when the Protected Frame bit is set.
    pub fn is_protected(&self) -> bool {
        self.frame_control().protected()
    }

    /// The LLC/SNAP header at the start of an unprotected, non-A-MSDU body,
    /// if the body starts with AA-AA-03.
    pub fn snap(&self) -> Option<SnapRepr> {
        if self.is_protected() || self.amsdu_present() || self.is_null() {
            return None;
        }
        SnapRepr::parse(&SnapHeader::new_checked(self.body()).ok()?).ok()
    }

    /// The EtherType of the MSDU, from its LLC/SNAP header.
    pub fn ethertype(&self) -> Option<EtherType> {
        self.snap().map(|s| s.ethertype)
    }

    /// The MSDU payload after LLC/SNAP (empty if there is none).
    pub fn msdu_payload(&self) -> &[u8] {
        if self.snap().is_some() {
            self.body().get(SNAP_HEADER_LEN..).unwrap_or(&[])
        } else {
            &[]
        }
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> DataFrame<T> {
    /// The frame body, mutable.
    pub fn body_mut(&mut self) -> &mut [u8] {
        let start = self.header_len();
        self.buffer.as_mut().get_mut(start..).unwrap_or(&mut [])
    }

    /// Sets or clears the Protected Frame bit.
    pub fn set_protected(&mut self, on: bool) {
        let mut fc = self.frame_control();
        fc.set_protected(on);
        if let Some(b) = self.buffer.as_mut().get_mut(..2) {
            b.copy_from_slice(&fc.to_bytes());
        }
    }
}

/// The addressing of a data frame (9.3.2.1, Table 9-30), which fixes the
/// To DS and From DS bits and what each address field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Addressing {
    /// To DS 0, From DS 0 (IBSS, or direct link): A1 = DA, A2 = SA, A3 = BSSID.
    Direct {
        /// Destination.
        da: MacAddr,
        /// Source.
        sa: MacAddr,
        /// BSSID.
        bssid: MacAddr,
    },
    /// To DS 1 (STA to AP): A1 = BSSID, A2 = SA, A3 = DA.
    ToAp {
        /// BSSID.
        bssid: MacAddr,
        /// Source.
        sa: MacAddr,
        /// Destination.
        da: MacAddr,
    },
    /// From DS 1 (AP to STA): A1 = DA, A2 = BSSID, A3 = SA.
    FromAp {
        /// Destination.
        da: MacAddr,
        /// BSSID.
        bssid: MacAddr,
        /// Source.
        sa: MacAddr,
    },
    /// To DS 1 and From DS 1 (WDS/mesh): A1 = RA, A2 = TA, A3 = DA, A4 = SA.
    FourAddress {
        /// Receiver.
        ra: MacAddr,
        /// Transmitter.
        ta: MacAddr,
        /// Destination.
        da: MacAddr,
        /// Source.
        sa: MacAddr,
    },
}

impl Addressing {
    /// A data header with this addressing. `tid` selects a QoS Data subtype
    /// with that TID (Normal Ack policy); `None` a plain Data frame.
    pub fn header(self, tid: Option<u8>, sequence_control: u16) -> HeaderRepr {
        let subtype = if tid.is_some() {
            data_subtype::QOS_DATA
        } else {
            data_subtype::DATA
        };
        let mut fc = FrameControl::new(FrameType::Data, subtype);
        let (a1, a2, a3, a4) = match self {
            Addressing::Direct { da, sa, bssid } => (da, sa, bssid, None),
            Addressing::ToAp { bssid, sa, da } => {
                fc.set_to_ds(true);
                (bssid, sa, da, None)
            }
            Addressing::FromAp { da, bssid, sa } => {
                fc.set_from_ds(true);
                (da, bssid, sa, None)
            }
            Addressing::FourAddress { ra, ta, da, sa } => {
                fc.set_to_ds(true);
                fc.set_from_ds(true);
                (ra, ta, da, Some(sa))
            }
        };
        HeaderRepr {
            frame_control: fc,
            duration: 0,
            addr1: a1,
            addr2: Some(a2),
            addr3: Some(a3),
            sequence_control: Some(sequence_control),
            addr4: a4,
            qos_control: tid.map(|t| u16::from(t & 0xf)),
            ht_control: None,
        }
    }
}

/// What follows the MAC header in a [`DataFrameRepr`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataBody<'a> {
    /// No body (Null subtypes).
    None,
    /// An MSDU behind an LLC/SNAP header.
    Msdu {
        /// The LLC/SNAP header.
        snap: SnapRepr,
        /// The bytes after it.
        payload: &'a [u8],
    },
    /// Any other body taken as opaque bytes: a protected body, an A-MSDU,
    /// or an LLC header that is not SNAP.
    Raw(&'a [u8]),
}

/// An owned data frame: header and body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataFrameRepr<'a> {
    /// The MAC header.
    pub header: HeaderRepr,
    /// The body.
    pub body: DataBody<'a>,
}

impl<'a> DataFrameRepr<'a> {
    /// An MSDU with this EtherType sent with this header, behind an RFC 1042
    /// (or 802.1H) LLC/SNAP header: the transmit path's first step.
    pub fn msdu(header: HeaderRepr, ethertype: EtherType, payload: &'a [u8]) -> Self {
        DataFrameRepr {
            header,
            body: DataBody::Msdu {
                snap: SnapRepr::for_ethertype(ethertype),
                payload,
            },
        }
    }

    /// Parses a checked data frame. A Null subtype with a body is
    /// `Malformed`. The body of a protected frame or of an A-MSDU is kept
    /// raw; an unprotected body that starts with AA-AA-03 is an MSDU.
    pub fn parse<T: AsRef<[u8]>>(f: &'a DataFrame<T>) -> Result<DataFrameRepr<'a>> {
        f.check_len()?;
        let header = HeaderRepr::parse(&f.header())?;
        let body = f.body();
        let body = if f.is_null() {
            if !body.is_empty() {
                return Err(Error::Malformed);
            }
            DataBody::None
        } else if let Some(snap) = f.snap() {
            DataBody::Msdu {
                snap,
                payload: body.get(SNAP_HEADER_LEN..).unwrap_or(&[]),
            }
        } else {
            DataBody::Raw(body)
        };
        Ok(DataFrameRepr { header, body })
    }

    /// Length of the emitted MPDU (without FCS). `Malformed` when the header
    /// is not a data header, or when a body is given to a Null subtype (or
    /// none to another subtype).
    pub fn buffer_len(&self) -> Result<usize> {
        let fc = self.header.frame_control;
        if !fc.is_data() {
            return Err(Error::Malformed);
        }
        let h = self.header.buffer_len()?;
        let b = match self.body {
            DataBody::None if fc.is_null_data() => 0,
            DataBody::None => return Err(Error::Malformed),
            _ if fc.is_null_data() => return Err(Error::Malformed),
            DataBody::Msdu { payload, .. } => SNAP_HEADER_LEN + payload.len(),
            DataBody::Raw(r) => r.len(),
        };
        Ok(h + b)
    }

    /// Writes the MPDU to the start of `buf`, returning its length.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let len = self.buffer_len()?;
        let b = buf.get_mut(..len).ok_or(Error::Truncated)?;
        let off = self.header.emit(b)?;
        match self.body {
            DataBody::None => {}
            DataBody::Msdu { snap, payload } => {
                let o = off + snap.emit(&mut b[off..])?;
                crate::bytes::put(b, o, payload)?;
            }
            DataBody::Raw(r) => {
                crate::bytes::put(b, off, r)?;
            }
        }
        Ok(len)
    }
}

/// Marks QoS Control fields: returns `qos` with A-MSDU Present set or
/// cleared.
pub const fn qos_with_amsdu(qos: u16, on: bool) -> u16 {
    if on {
        qos | QOS_AMSDU_PRESENT
    } else {
        qos & !QOS_AMSDU_PRESENT
    }
}

/// The EOSP bit of a QoS Control value.
pub const fn qos_eosp(qos: u16) -> bool {
    qos & QOS_EOSP != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame_control::FrameType;

    // IEEE 802.11-2012 M.6.3 TKIP plaintext MPDU (vectors file,
    // tkip_M63_input): From DS data frame, Protected bit set by the
    // generator, body = LLC/SNAP IPv4 ICMP echo.
    const TKIP_M63: &str = "08422c00020304050608020304050607020304050607d002aaaa03000000080045000054000040004001a555c0a80a02c0a80a0108003ab000000000cd4c05000000000008090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f3031323334353637";
    // P802.11ac M.11.1 GCMP-256 plaintext MPDU (gcmp256): QoS data, TID 3.
    const GCMP256: &str = "88480b000fd2e128a57c5030f18444085030f184440880330300000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324252627";

    #[test]
    fn tkip_vector_msdu() {
        let mut bytes = hex::decode(TKIP_M63).unwrap();
        let f = DataFrame::new_checked(&bytes[..]).unwrap();
        assert!(f.is_protected());
        assert_eq!(f.header_len(), 24);
        assert_eq!(f.qos_control(), None);
        assert_eq!(f.tid(), 0);
        assert_eq!(f.snap(), None, "a protected body is opaque");
        assert_eq!(&f.body()[..3], &[0xaa, 0xaa, 0x03]);
        let h = f.header();
        assert_eq!(h.da(), Some(MacAddr([2, 3, 4, 5, 6, 8])));
        assert_eq!(h.bssid(), Some(MacAddr([2, 3, 4, 5, 6, 7])));
        let r = DataFrameRepr::parse(&f).unwrap();
        assert_eq!(r.body, DataBody::Raw(&bytes[24..]));
        let mut out = [0u8; 256];
        let n = r.emit(&mut out).unwrap();
        assert_eq!(&out[..n], &bytes[..]);

        // As the plaintext it is: clear Protected and read the MSDU.
        let mut fm = DataFrame::new_checked(&mut bytes[..]).unwrap();
        fm.set_protected(false);
        let f = DataFrame::new_checked(&bytes[..]).unwrap();
        assert_eq!(f.ethertype(), Some(EtherType::IPV4));
        assert_eq!(f.msdu_payload()[0], 0x45);
        let r = DataFrameRepr::parse(&f).unwrap();
        let DataBody::Msdu { snap, payload } = r.body else {
            panic!("expected an MSDU")
        };
        assert_eq!(snap.ethertype, EtherType::IPV4);
        assert_eq!(payload.len(), bytes.len() - 32);
        // The same MPDU built from addressing + MSDU.
        let hdr = Addressing::FromAp {
            da: MacAddr([2, 3, 4, 5, 6, 8]),
            bssid: MacAddr([2, 3, 4, 5, 6, 7]),
            sa: MacAddr([2, 3, 4, 5, 6, 7]),
        }
        .header(None, 0x02d0);
        let mut hdr = hdr;
        hdr.duration = 0x002c;
        let built = DataFrameRepr::msdu(hdr, EtherType::IPV4, payload);
        assert_eq!(built, r);
        let n = built.emit(&mut out).unwrap();
        assert_eq!(&out[..n], &bytes[..]);
        assert_eq!(built.emit(&mut out[..n - 1]), Err(Error::Truncated));
    }

    #[test]
    fn gcmp_vector_qos() {
        let bytes = hex::decode(GCMP256).unwrap();
        let f = DataFrame::new_checked(&bytes[..]).unwrap();
        assert_eq!(f.header_len(), 26);
        assert_eq!(f.qos_control(), Some(0x0003));
        assert_eq!(f.tid(), 3);
        assert!(!f.amsdu_present());
        assert!(!f.is_null());
        assert_eq!(f.body()[0], 0x00);
        assert_eq!(f.body().len(), bytes.len() - 26);
        let r = DataFrameRepr::parse(&f).unwrap();
        let mut out = [0u8; 128];
        let n = r.emit(&mut out).unwrap();
        assert_eq!(&out[..n], &bytes[..]);
        // A-MSDU Present is bit 7 of QoS Control.
        let mut b2 = bytes.clone();
        b2[24] |= 0x80;
        let f2 = DataFrame::new_checked(&b2[..]).unwrap();
        assert!(f2.amsdu_present());
        assert_eq!(f2.tid(), 3);
        assert_eq!(qos_with_amsdu(3, true), 0x83);
        // A management frame is not a data frame.
        let mut b3 = bytes.clone();
        b3[0] = 0x80;
        assert_eq!(
            DataFrame::new_checked(&b3[..]).unwrap_err(),
            Error::Malformed
        );
        assert_eq!(
            DataFrame::new_checked(&bytes[..25]).unwrap_err(),
            Error::Truncated
        );
    }

    #[test]
    fn addressing_forms_match_table_9_30() {
        let (a, b, c, d) = (
            MacAddr([1; 6]),
            MacAddr([2; 6]),
            MacAddr([3; 6]),
            MacAddr([4; 6]),
        );
        let cases = [
            (
                Addressing::Direct {
                    da: a,
                    sa: b,
                    bssid: c,
                },
                (false, false),
            ),
            (
                Addressing::ToAp {
                    bssid: c,
                    sa: b,
                    da: a,
                },
                (true, false),
            ),
            (
                Addressing::FromAp {
                    da: a,
                    bssid: c,
                    sa: b,
                },
                (false, true),
            ),
        ];
        let mut buf = [0u8; 64];
        for (addr, (to, from)) in cases {
            let h = addr.header(Some(5), 0x10);
            let r = DataFrameRepr::msdu(h, EtherType::EAPOL, &[1, 2, 3]);
            let n = r.emit(&mut buf).unwrap();
            assert_eq!(n, 26 + 8 + 3);
            let f = DataFrame::new_checked(&buf[..n]).unwrap();
            let v = f.header();
            assert_eq!(
                (v.frame_control().to_ds(), v.frame_control().from_ds()),
                (to, from)
            );
            assert_eq!(v.da(), Some(a));
            assert_eq!(v.sa(), Some(b));
            assert_eq!(v.bssid(), Some(c));
            assert_eq!(f.tid(), 5);
            assert_eq!(f.ethertype(), Some(EtherType::EAPOL));
            assert_eq!(f.msdu_payload(), &[1, 2, 3]);
            assert_eq!(DataFrameRepr::parse(&f), Ok(r));
        }
        let h = Addressing::FourAddress {
            ra: c,
            ta: d,
            da: a,
            sa: b,
        }
        .header(None, 0);
        let r = DataFrameRepr::msdu(h, EtherType::IPV6, &[]);
        let n = r.emit(&mut buf).unwrap();
        assert_eq!(n, 30 + 8);
        let v = Header::new_checked(&buf[..n]).unwrap();
        assert_eq!(
            (v.ra(), v.ta(), v.da(), v.sa()),
            (c, Some(d), Some(a), Some(b))
        );
        assert_eq!(&buf[30..38], &[0xaa, 0xaa, 3, 0, 0, 0, 0x86, 0xdd]);
    }

    #[test]
    fn null_frames() {
        let mut fc = FrameControl::new(FrameType::Data, data_subtype::QOS_NULL);
        fc.set_to_ds(true);
        let mut h = Addressing::ToAp {
            bssid: MacAddr([1; 6]),
            sa: MacAddr([2; 6]),
            da: MacAddr([1; 6]),
        }
        .header(Some(0), 0);
        h.frame_control = fc;
        let r = DataFrameRepr {
            header: h,
            body: DataBody::None,
        };
        let mut buf = [0u8; 32];
        assert_eq!(r.emit(&mut buf), Ok(26));
        let f = DataFrame::new_checked(&buf[..26]).unwrap();
        assert!(f.is_null());
        assert_eq!(DataFrameRepr::parse(&f), Ok(r));
        // A Null subtype with a body.
        let f = DataFrame::new_checked(&buf[..27]).unwrap();
        assert_eq!(DataFrameRepr::parse(&f), Err(Error::Malformed));
        let bad = DataFrameRepr {
            header: h,
            body: DataBody::Raw(&[1]),
        };
        assert_eq!(bad.buffer_len(), Err(Error::Malformed));
        h.frame_control.set_subtype(data_subtype::QOS_DATA);
        let bad = DataFrameRepr {
            header: h,
            body: DataBody::None,
        };
        assert_eq!(bad.buffer_len(), Err(Error::Malformed));
    }
}
