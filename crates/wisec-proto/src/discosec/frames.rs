//! Frame building and the fixed-capacity queues of the state machines.

use super::Error;
use wisec_wire::element::ElementId;
use wisec_wire::frame_control::{FrameControl, FrameType};
use wisec_wire::mgmt::MgmtSubtype;
use wisec_wire::{HeaderRepr, MacAddr};

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
    let h = HeaderRepr {
        frame_control: FrameControl::new(FrameType::Management, subtype.to_u8()),
        duration: 0,
        addr1,
        addr2: Some(addr2),
        addr3: Some(addr3),
        sequence_control: Some((seq_num & 0x0fff) << 4),
        addr4: None,
        qos_control: None,
        ht_control: None,
    };
    let n = h.emit(buf).map_err(|_| Error::BufferTooSmall)?;
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

    /// Builds a frame with `build` into the next free slot; the frame is
    /// queued only if `build` succeeds. A full queue drops the frame and
    /// counts it.
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

    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }
}

/// A ring of events; when full the oldest event is overwritten.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queues() {
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
        assert!(Ssid::new(&[0; 33]).is_none());
        assert_eq!(Ssid::new(b"lab").unwrap().as_bytes(), b"lab");
    }
}
