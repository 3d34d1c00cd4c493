//! Frame building and the fixed-capacity queues of the state machines.

use super::Error;
use wisec_wire::element::ElementId;
use wisec_wire::mgmt::MgmtSubtype;
use wisec_wire::MacAddr;

/// The largest frame the state machines build (a beacon with a P-384 key
/// and 62 tokens needs about 450 octets).
pub const MAX_FRAME: usize = 512;

/// The rates every frame advertises: 1, 2, 5.5, 11 (basic), 6, 9, 12, 18
/// Mb/s.
pub(crate) const RATES: [u8; 8] = [0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24];

/// An SSID of at most 32 octets, owned.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ssid {
    bytes: [u8; 32],
    len: u8,
}

impl core::fmt::Debug for Ssid {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Ssid({:?})", self.as_bytes())
    }
}

impl Ssid {
    /// `None` when longer than 32 octets.
    pub fn new(ssid: &[u8]) -> Option<Ssid> {
        let mut bytes = [0u8; 32];
        bytes.get_mut(..ssid.len())?.copy_from_slice(ssid);
        Some(Ssid {
            bytes,
            len: ssid.len() as u8,
        })
    }

    /// The octets.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..usize::from(self.len)).unwrap_or(&[])
    }
}

/// Writes a management header and fixed fields; returns the offset after
/// them.
pub(crate) fn mgmt_header(
    buf: &mut [u8],
    subtype: MgmtSubtype,
    addr1: MacAddr,
    addr2: MacAddr,
    addr3: MacAddr,
    seq_num: u16,
    fixed: &[u8],
) -> Result<usize, Error> {
    let n = crate::mgmt::emit_header(buf, subtype, addr1, addr2, addr3, seq_num)
        .map_err(|_| Error::BufferTooSmall)?;
    let end = n + fixed.len();
    buf.get_mut(n..end)
        .ok_or(Error::BufferTooSmall)?
        .copy_from_slice(fixed);
    Ok(end)
}

/// Writes the SSID and Supported Rates elements at `off`.
pub(crate) fn ssid_rates(buf: &mut [u8], off: usize, ssid: &[u8]) -> Result<usize, Error> {
    let mut w = wisec_wire::ElementWriter::new(buf.get_mut(off..).ok_or(Error::BufferTooSmall)?);
    w.push(ElementId::SSID, ssid)
        .and_then(|w| w.push(ElementId::SUPPORTED_RATES, &RATES))
        .map_err(|_| Error::BufferTooSmall)?;
    Ok(off + w.len())
}

/// Appends one element emitted by `emit` at `off`.
pub(crate) fn push(
    buf: &mut [u8],
    off: usize,
    emit: impl FnOnce(&mut [u8]) -> wisec_wire::Result<usize>,
) -> Result<usize, Error> {
    let n = emit(buf.get_mut(off..).ok_or(Error::BufferTooSmall)?)
        .map_err(|_| Error::BufferTooSmall)?;
    Ok(off + n)
}

/// The frames waiting for `poll_transmit`.
pub(crate) type TxQueue<const Q: usize> = crate::queue::TxQueue<MAX_FRAME, Q>;

pub(crate) use crate::queue::EventQueue;

impl crate::queue::QueueFull for Error {
    fn queue_full() -> Self {
        Error::BufferTooSmall
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssid() {
        assert!(Ssid::new(&[0; 33]).is_none());
        assert_eq!(Ssid::new(b"lab").unwrap().as_bytes(), b"lab");
    }
}
