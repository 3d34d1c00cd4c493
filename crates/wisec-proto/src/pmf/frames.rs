//! Frame building blocks shared by the PMF access point and station.

use super::Error;
use wisec_wire::data::{Addressing, DataFrame};
use wisec_wire::frame_control::{FrameControl, FrameType};
use wisec_wire::llc::{EtherType, SnapRepr};
use wisec_wire::mgmt::MgmtSubtype;
use wisec_wire::{HeaderRepr, MacAddr};

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
    HeaderRepr {
        frame_control: FrameControl::new(FrameType::Management, subtype.to_u8()),
        duration: 0,
        addr1,
        addr2: Some(addr2),
        addr3: Some(addr3),
        sequence_control: Some((seq & 0x0fff) << 4),
        addr4: None,
        qos_control: None,
        ht_control: None,
    }
    .emit(buf)
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

/// A ring of built frames waiting for `poll_transmit`.
pub(crate) struct TxQueue<const Q: usize> {
    frames: [[u8; MAX_FRAME]; Q],
    lens: [usize; Q],
    head: usize,
    len: usize,
    pub(crate) dropped: u64,
}

impl<const Q: usize> TxQueue<Q> {
    pub(crate) const fn new() -> Self {
        TxQueue {
            frames: [[0; MAX_FRAME]; Q],
            lens: [0; Q],
            head: 0,
            len: 0,
            dropped: 0,
        }
    }

    /// Builds a frame with `build` into the next free slot; it is queued
    /// only if `build` succeeds. A full queue drops the frame and counts
    /// it.
    pub(crate) fn push(
        &mut self,
        build: impl FnOnce(&mut [u8; MAX_FRAME]) -> Result<usize, Error>,
    ) -> Result<(), Error> {
        if self.len == Q || Q == 0 {
            self.dropped += 1;
            return Err(Error::BufferTooSmall);
        }
        let i = (self.head + self.len) % Q;
        let n = build(&mut self.frames[i])?;
        self.lens[i] = n.min(MAX_FRAME);
        self.len += 1;
        Ok(())
    }

    pub(crate) fn pop(&mut self) -> Option<&[u8]> {
        if self.len == 0 {
            return None;
        }
        let i = self.head;
        self.head = (self.head + 1) % Q;
        self.len -= 1;
        self.frames[i].get(..self.lens[i])
    }
}

/// A ring of events; when full the oldest is overwritten.
pub(crate) struct EventQueue<T: Copy, const C: usize> {
    items: [Option<T>; C],
    head: usize,
    len: usize,
}

impl<T: Copy, const C: usize> EventQueue<T, C> {
    pub(crate) const fn new() -> Self {
        EventQueue {
            items: [None; C],
            head: 0,
            len: 0,
        }
    }

    pub(crate) fn push(&mut self, e: T) {
        if C == 0 {
            return;
        }
        if self.len == C {
            self.head = (self.head + 1) % C;
            self.len -= 1;
        }
        self.items[(self.head + self.len) % C] = Some(e);
        self.len += 1;
    }

    pub(crate) fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let e = self.items[self.head].take();
        self.head = (self.head + 1) % C;
        self.len -= 1;
        e
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
    fn queues_drop_when_full() {
        let mut q: TxQueue<2> = TxQueue::new();
        q.push(|b| {
            b[0] = 1;
            Ok(1)
        })
        .unwrap();
        assert!(q.push(|_| Err(Error::BufferTooSmall)).is_err());
        q.push(|_| Ok(2)).unwrap();
        assert!(q.push(|_| Ok(3)).is_err());
        assert_eq!(q.dropped, 1);
        assert_eq!(q.pop(), Some(&[1u8][..]));
        assert_eq!(q.pop().map(|f| f.len()), Some(2));
        assert_eq!(q.pop(), None);
        let mut e: EventQueue<u8, 2> = EventQueue::new();
        e.push(1);
        e.push(2);
        e.push(3);
        assert_eq!((e.pop(), e.pop(), e.pop()), (Some(2), Some(3), None));
        let mut s = [0u8; MAX_FRAME];
        assert!(copy_in(&mut s, &[0u8; MAX_FRAME + 1]).is_err());
    }
}
