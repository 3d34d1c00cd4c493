//! Frame building blocks shared by the PMF access point and station.

use super::Error;
use wisec_wire::data::{Addressing, DataFrame};
use wisec_wire::llc::{EtherType, SnapRepr};
use wisec_wire::mgmt::MgmtSubtype;
use wisec_wire::MacAddr;

/// Longest frame the PMF machines build or accept for processing.
pub const MAX_FRAME: usize = 1024;

/// What a received frame turned out to be, once every check passed.
#[derive(Debug, PartialEq, Eq)]
pub enum Rx<'a> {
    /// A management frame acted upon (its effects are in the events).
    Handled,
    /// An EAPOL PDU from `peer` for the caller's 4-way or group key
    /// handshake machine.
    Eapol {
        /// The sender.
        peer: MacAddr,
        /// The PDU (from the EAPOL header on).
        pdu: &'a [u8],
    },
    /// An MSDU from `peer`, decrypted and replay-checked when the
    /// association is protected.
    Data {
        /// The sender.
        peer: MacAddr,
        /// Its EtherType.
        ethertype: EtherType,
        /// The payload after the LLC/SNAP header.
        payload: &'a [u8],
    },
}

/// Writes a management header (sequence number `seq`) and returns its
/// length.
pub(crate) fn mgmt_header(
    buf: &mut [u8],
    subtype: MgmtSubtype,
    addr1: MacAddr,
    addr2: MacAddr,
    addr3: MacAddr,
    seq: u16,
) -> Result<usize, Error> {
    crate::mgmt::emit_header(buf, subtype, addr1, addr2, addr3, seq)
        .map_err(|_| Error::BufferTooSmall)
}

/// Copies `bytes` to `buf` at `off`, returning the new offset.
pub(crate) fn put(buf: &mut [u8], off: usize, bytes: &[u8]) -> Result<usize, Error> {
    let end = off.checked_add(bytes.len()).ok_or(Error::BufferTooSmall)?;
    buf.get_mut(off..end)
        .ok_or(Error::BufferTooSmall)?
        .copy_from_slice(bytes);
    Ok(end)
}

/// Writes a data frame carrying `payload` behind an LLC/SNAP header with
/// `ethertype`; returns its length.
pub(crate) fn data_frame(
    buf: &mut [u8],
    addressing: Addressing,
    seq: u16,
    ethertype: EtherType,
    payload: &[u8],
) -> Result<usize, Error> {
    let h = addressing
        .header(None, (seq & 0x0fff) << 4)
        .emit(buf)
        .map_err(|_| Error::BufferTooSmall)?;
    let n = SnapRepr::for_ethertype(ethertype)
        .emit(buf.get_mut(h..).ok_or(Error::BufferTooSmall)?)
        .map_err(|_| Error::BufferTooSmall)?;
    put(buf, h + n, payload)
}

/// The frames waiting for `poll_transmit`.
pub(crate) type TxQueue<const Q: usize> = crate::queue::TxQueue<MAX_FRAME, Q>;

pub(crate) use crate::queue::EventQueue;

impl crate::queue::QueueFull for Error {
    fn queue_full() -> Self {
        Error::BufferTooSmall
    }
}

/// Copies a received frame into `scratch` for in-place decryption.
pub(crate) fn copy_in<'a>(
    scratch: &'a mut [u8; MAX_FRAME],
    frame: &[u8],
) -> Result<&'a mut [u8], Error> {
    let b = scratch
        .get_mut(..frame.len())
        .ok_or(Error::Malformed(wisec_wire::Error::Unsupported))?;
    b.copy_from_slice(frame);
    Ok(b)
}

/// The [`Rx`] of an accepted data frame whose plaintext is
/// `scratch[..len]`.
pub(crate) fn delivered(scratch: &[u8], len: usize) -> Result<Rx<'_>, Error> {
    let plain = scratch.get(..len).unwrap_or(&[]);
    let f = DataFrame::new_checked(plain)?;
    let peer = f
        .header()
        .addr2()
        .ok_or(Error::Malformed(wisec_wire::Error::Truncated))?;
    let ethertype = f.ethertype().ok_or(Error::UnexpectedFrame)?;
    let start = f.header_len() + wisec_wire::llc::SNAP_HEADER_LEN;
    let payload = plain.get(start..).unwrap_or(&[]);
    Ok(if ethertype == EtherType::EAPOL {
        Rx::Eapol { peer, pdu: payload }
    } else {
        Rx::Data {
            peer,
            ethertype,
            payload,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_in_rejects_oversize() {
        let mut s = [0u8; MAX_FRAME];
        assert!(copy_in(&mut s, &[0u8; MAX_FRAME + 1]).is_err());
    }
}
