//! Fixed-capacity queues shared by the PMF and DiscoSec state machines:
//! built frames waiting for `poll_transmit` and events waiting for
//! `poll_event`.

/// An error a [`TxQueue`] reports when it is full.
pub(crate) trait QueueFull {
    /// The error for a frame dropped because the queue is full.
    fn queue_full() -> Self;
}

/// A ring of built frames (each at most `N` octets) waiting for
/// `poll_transmit`.
pub(crate) struct TxQueue<const N: usize, const Q: usize> {
    frames: [[u8; N]; Q],
    lens: [usize; Q],
    head: usize,
    len: usize,
    pub(crate) dropped: u64,
}

impl<const N: usize, const Q: usize> TxQueue<N, Q> {
    pub(crate) const fn new() -> Self {
        TxQueue {
            frames: [[0; N]; Q],
            lens: [0; Q],
            head: 0,
            len: 0,
            dropped: 0,
        }
    }

    /// Builds a frame with `build` into the next free slot; the frame is
    /// queued only if `build` succeeds. A full queue drops the frame and
    /// counts it.
    pub(crate) fn push<E: QueueFull>(
        &mut self,
        build: impl FnOnce(&mut [u8; N]) -> Result<usize, E>,
    ) -> Result<(), E> {
        if self.len == Q || Q == 0 {
            self.dropped += 1;
            return Err(E::queue_full());
        }
        let i = (self.head + self.len) % Q;
        let n = build(&mut self.frames[i])?;
        self.lens[i] = n.min(N);
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

    #[derive(Debug, PartialEq)]
    enum TestError {
        Full,
        Build,
    }

    impl QueueFull for TestError {
        fn queue_full() -> Self {
            TestError::Full
        }
    }

    #[test]
    fn queues_drop_when_full() {
        let mut q: TxQueue<4, 2> = TxQueue::new();
        q.push::<TestError>(|b| {
            b[0] = 1;
            Ok(1)
        })
        .unwrap();
        assert_eq!(q.push(|_| Err(TestError::Build)), Err(TestError::Build));
        q.push::<TestError>(|_| Ok(2)).unwrap();
        assert_eq!(q.push(|_| Ok(3)), Err(TestError::Full));
        assert_eq!(q.dropped, 1);
        assert_eq!(q.pop(), Some(&[1u8][..]));
        assert_eq!(q.pop().map(|f| f.len()), Some(2));
        assert_eq!(q.pop(), None);
        // A length beyond the slot is clamped to the slot.
        q.push::<TestError>(|_| Ok(9)).unwrap();
        assert_eq!(q.pop().map(|f| f.len()), Some(4));
        q.push::<TestError>(|_| Ok(1)).unwrap();
        q.clear();
        assert_eq!(q.pop(), None);
        let mut e: EventQueue<u8, 2> = EventQueue::new();
        e.push(1);
        e.push(2);
        e.push(3);
        assert_eq!((e.pop(), e.pop(), e.pop()), (Some(2), Some(3), None));
    }

    #[test]
    fn full_queue_errors_are_buffer_too_small() {
        assert_eq!(
            <crate::pmf::Error as QueueFull>::queue_full(),
            crate::pmf::Error::BufferTooSmall
        );
        assert_eq!(
            <crate::discosec::Error as QueueFull>::queue_full(),
            crate::discosec::Error::BufferTooSmall
        );
    }
}
