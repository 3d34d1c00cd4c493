//! Streaming capture reader.

use super::pcap::{self, Layout};
use super::pcapng::{self, Order};
use super::{CaptureError, Format, Interface, Item, Packet, PacketMeta, Record, MAX_RECORD};
use flate2::bufread::MultiGzDecoder;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// How far a reader has got through its file, in bytes of the file as
/// stored (compressed bytes for a gzip file).
#[derive(Debug, Clone, Default)]
pub struct Progress {
    read: Arc<AtomicU64>,
    total: Option<u64>,
}

impl Progress {
    /// Bytes of the file read so far.
    pub fn bytes_read(&self) -> u64 {
        self.read.load(Ordering::Relaxed)
    }

    /// The size of the file, when it is a regular file.
    pub fn total(&self) -> Option<u64> {
        self.total
    }
}

/// The compressed bytes a gzip decoder takes from a buffered reader,
/// counted as it consumes them.
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: BufRead> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counting<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        self.inner.consume(n);
    }
}

enum State {
    Pcap(Layout),
    Pcapng(Order),
    Done,
}

/// Interface description blocks one pcapng section may hold (the reader
/// keeps them all, so their number is bounded).
pub const MAX_INTERFACES: usize = 65_536;

/// Reads pcap or pcapng, plain or gzip-compressed, one record at a time.
pub struct CaptureReader {
    file: String,
    src: Box<dyn BufRead + Send>,
    offset: u64,
    format: Format,
    gzip: bool,
    state: State,
    interfaces: Vec<Interface>,
    queue: VecDeque<Record>,
    progress: Progress,
    /// Bytes read from `src` ahead of `offset` by [`CaptureReader::read_packets`]
    /// (the start of a record that did not fit), read again first.
    carry: Vec<u8>,
}

/// Why [`CaptureReader::read_packets`] stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The buffer holds at least the bytes asked for.
    Full,
    /// A section or interface record follows the packets read.
    Record(Record),
    /// The end of the file.
    End,
    /// The file is damaged here (a truncated or corrupt record, a read
    /// error): the packets before it were read, nothing after it will be.
    /// The message names the file and the offset.
    Damaged(String),
}

const BUF: usize = 1 << 16;

impl CaptureReader {
    /// Opens a capture file; errors name the file as `path` displays.
    pub fn open(path: &Path) -> Result<CaptureReader, CaptureError> {
        let name = path.display().to_string();
        let f = File::open(path).map_err(|e| CaptureError {
            file: name.clone(),
            offset: None,
            message: io_message(&e),
        })?;
        let total = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
        CaptureReader::with_size(&name, Box::new(f), total)
    }

    /// Reads a capture from any byte stream; `name` is used in errors.
    pub fn from_reader(name: &str, r: Box<dyn Read + Send>) -> Result<CaptureReader, CaptureError> {
        CaptureReader::with_size(name, r, None)
    }

    fn with_size(
        name: &str,
        r: Box<dyn Read + Send>,
        total: Option<u64>,
    ) -> Result<CaptureReader, CaptureError> {
        let progress = Progress {
            read: Arc::new(AtomicU64::new(0)),
            total,
        };
        // The plain file is read straight from `r` (no wrapper of ours in
        // between: a `Read` that only implements `read` has the standard
        // library zero every buffer before reading into it), and its
        // bytes are counted where this reader reads them; a compressed
        // one through a counter under the decoder.
        let mut raw = BufReader::with_capacity(BUF, r);
        let head = raw.fill_buf().map_err(|e| CaptureError {
            file: name.to_string(),
            offset: None,
            message: io_message(&e),
        })?;
        let gzip = head.starts_with(&[0x1f, 0x8b]);
        let src: Box<dyn BufRead + Send> = if gzip {
            let counting = Counting {
                inner: raw,
                count: progress.read.clone(),
            };
            Box::new(BufReader::with_capacity(BUF, MultiGzDecoder::new(counting)))
        } else {
            Box::new(raw)
        };
        let mut r = CaptureReader {
            file: name.to_string(),
            src,
            offset: 0,
            format: Format::Pcap,
            gzip,
            state: State::Done,
            interfaces: Vec::new(),
            queue: VecDeque::new(),
            progress,
            carry: Vec::new(),
        };
        r.start()?;
        Ok(r)
    }

    /// The container format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// True when the file is gzip-compressed.
    pub fn is_gzip(&self) -> bool {
        self.gzip
    }

    /// The interfaces of the current section.
    pub fn interfaces(&self) -> &[Interface] {
        &self.interfaces
    }

    /// One interface of the current section.
    pub fn interface(&self, index: u32) -> Option<&Interface> {
        self.interfaces.get(usize::try_from(index).ok()?)
    }

    /// The file name used in errors.
    pub fn file_name(&self) -> &str {
        &self.file
    }

    /// A handle that reports how much of the file has been read.
    pub fn progress(&self) -> Progress {
        self.progress.clone()
    }

    fn err(&self, offset: u64, message: impl Into<String>) -> CaptureError {
        let mut message = message.into();
        if self.gzip {
            message = format!("{message} (offset in the uncompressed data)");
        }
        CaptureError {
            file: self.file.clone(),
            offset: Some(offset),
            message,
        }
    }

    fn io_err(&self, e: &io::Error) -> CaptureError {
        CaptureError {
            file: self.file.clone(),
            offset: Some(self.offset),
            message: io_message(e),
        }
    }

    /// Reads up to `buf.len()` bytes; fewer only at the end of the file.
    fn read_full(&mut self, buf: &mut [u8]) -> Result<usize, CaptureError> {
        let mut n = 0;
        if !self.carry.is_empty() {
            n = self.carry.len().min(buf.len());
            buf[..n].copy_from_slice(&self.carry[..n]);
            self.carry.drain(..n);
        }
        while n < buf.len() {
            match self.src.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.io_err(&e)),
            }
        }
        self.offset += n as u64;
        self.count_plain(n);
        Ok(n)
    }

    /// Adds `n` bytes read from a plain (uncompressed) file to the
    /// progress; a compressed file's are counted under the decoder.
    fn count_plain(&self, n: usize) {
        if !self.gzip {
            self.progress.read.fetch_add(n as u64, Ordering::Relaxed);
        }
    }

    fn start(&mut self) -> Result<(), CaptureError> {
        let mut magic = [0u8; 4];
        let n = self.read_full(&mut magic)?;
        if n == 0 {
            return Err(self.err(0, "the file is empty, not a pcap or pcapng capture"));
        }
        if n < 4 {
            return Err(self.err(
                0,
                format!("{n} bytes are too short for a pcap or pcapng file header"),
            ));
        }
        if u32::from_le_bytes(magic) == pcapng::SHB {
            self.format = Format::Pcapng;
            self.state = State::Pcapng(Order { big_endian: false });
            let block = self.read_block_after_type(0, pcapng::SHB)?;
            self.handle_block(0, pcapng::SHB, &block)?;
            return Ok(());
        }
        if pcap::layout_of(magic).is_none() {
            return Err(self.err(
                0,
                format!(
                    "not a pcap or pcapng file (magic {:02x} {:02x} {:02x} {:02x})",
                    magic[0], magic[1], magic[2], magic[3]
                ),
            ));
        }
        let mut h = [0u8; pcap::FILE_HEADER_LEN];
        h[..4].copy_from_slice(&magic);
        let got = 4 + self.read_full(&mut h[4..])?;
        if got < pcap::FILE_HEADER_LEN {
            return Err(self.err(
                0,
                format!(
                    "truncated pcap file header ({got} of {} bytes)",
                    pcap::FILE_HEADER_LEN
                ),
            ));
        }
        let (layout, iface) = pcap::parse_file_header(&h).map_err(|m| self.err(0, m))?;
        self.format = Format::Pcap;
        self.state = State::Pcap(layout);
        self.interfaces.push(iface.clone());
        self.queue.push_back(Record::Section);
        self.queue.push_back(Record::Interface(iface));
        Ok(())
    }

    /// The next record, or `None` at the end of the file.
    pub fn next_record(&mut self) -> Result<Option<Record>, CaptureError> {
        if let Some(r) = self.queue.pop_front() {
            return Ok(Some(r));
        }
        loop {
            match self.state {
                State::Done => return Ok(None),
                State::Pcap(layout) => return self.next_pcap(layout),
                State::Pcapng(order) => {
                    let at = self.offset;
                    let mut t = [0u8; 4];
                    let n = self.read_full(&mut t)?;
                    if n == 0 {
                        self.state = State::Done;
                        return Ok(None);
                    }
                    if n < 4 {
                        return Err(
                            self.err(at, format!("truncated block header ({n} of 8 bytes)"))
                        );
                    }
                    let block_type = if u32::from_le_bytes(t) == pcapng::SHB {
                        pcapng::SHB
                    } else if order.big_endian {
                        u32::from_be_bytes(t)
                    } else {
                        u32::from_le_bytes(t)
                    };
                    let body = self.read_block_after_type(at, block_type)?;
                    self.handle_block(at, block_type, &body)?;
                    if let Some(r) = self.queue.pop_front() {
                        return Ok(Some(r));
                    }
                }
            }
        }
    }

    /// Reads packets until `arena` holds at least `max_bytes` bytes, a
    /// section or interface record comes, or the file ends, and says which.
    /// Each packet's bytes are somewhere in `arena` (which the caller
    /// clears between calls), where `metas` says. Classic pcap files are
    /// read in large blocks and their packets left where they landed.
    ///
    /// A damaged file is not an error here: the packets before the damage
    /// are returned with [`Stop::Damaged`], and later calls end the file.
    pub fn read_packets(
        &mut self,
        arena: &mut Vec<u8>,
        metas: &mut Vec<PacketMeta>,
        max_bytes: usize,
    ) -> Result<Stop, CaptureError> {
        let r = self.read_packets_or_fail(arena, metas, max_bytes);
        match r {
            Err(e) => {
                self.state = State::Done;
                self.queue.clear();
                self.carry.clear();
                Ok(Stop::Damaged(e.to_string()))
            }
            ok => ok,
        }
    }

    fn read_packets_or_fail(
        &mut self,
        arena: &mut Vec<u8>,
        metas: &mut Vec<PacketMeta>,
        max_bytes: usize,
    ) -> Result<Stop, CaptureError> {
        if let (true, State::Pcap(layout)) = (self.queue.is_empty(), &self.state) {
            let layout = *layout;
            return self.read_pcap_block(layout, arena, metas, max_bytes);
        }
        while arena.len() < max_bytes {
            match self.next_into(arena)? {
                Some(Item::Packet(m)) => metas.push(m),
                Some(Item::Other(r)) => return Ok(Stop::Record(r)),
                None => return Ok(Stop::End),
            }
        }
        Ok(Stop::Full)
    }

    /// Octets [`CaptureReader::read_pcap_block`] reads past the bytes
    /// asked for, so that the record crossing them is mostly read whole.
    const READ_SLACK: usize = 4096;

    fn read_pcap_block(
        &mut self,
        layout: Layout,
        arena: &mut Vec<u8>,
        metas: &mut Vec<PacketMeta>,
        max_bytes: usize,
    ) -> Result<Stop, CaptureError> {
        const H: usize = pcap::RECORD_HEADER_LEN;
        let mut pos = arena.len();
        arena.append(&mut self.carry);
        loop {
            // Every whole record in the buffer, up to the size asked for.
            while let Some(h) = arena.get(pos..pos + H).filter(|_| pos < max_bytes) {
                let w = |i: usize| layout.u32(&[h[i], h[i + 1], h[i + 2], h[i + 3]]);
                let (sec, frac, caplen, orig_len) = (w(0), w(4), w(8), w(12));
                if caplen > MAX_RECORD {
                    return Err(self.err(
                        self.offset,
                        format!(
                            "packet record length {caplen} exceeds the limit of {MAX_RECORD} bytes"
                        ),
                    ));
                }
                let len = caplen as usize;
                if arena.len() < pos + H + len {
                    break;
                }
                metas.push(PacketMeta {
                    interface: 0,
                    timestamp: u64::from(sec) * layout.units() + u64::from(frac),
                    orig_len,
                    start: pos + H,
                    len,
                });
                pos += H + len;
                self.offset += (H + len) as u64;
            }
            if pos >= max_bytes {
                self.carry
                    .extend_from_slice(arena.get(pos..).unwrap_or_default());
                arena.truncate(pos);
                return Ok(Stop::Full);
            }
            // Straight into the buffer's spare capacity (no zeroing), up
            // to a little past the bytes asked for: what a read brings
            // beyond the record that crosses them is carried over to the
            // next call, a copy there and back. At least 16 KiB and at
            // most 256 KiB a read.
            let have = arena.len();
            let read = (max_bytes + Self::READ_SLACK)
                .saturating_sub(have)
                .clamp(1 << 14, 1 << 18);
            arena.reserve(read);
            let got = match (&mut self.src).take(read as u64).read_to_end(arena) {
                Ok(n) => n,
                Err(e) => {
                    arena.truncate(have);
                    return Err(self.io_err(&e));
                }
            };
            self.count_plain(got);
            if got > 0 {
                continue;
            }
            // The end of the file: nothing may be left over.
            let rest = arena.len() - pos;
            let at = self.offset;
            let err = if rest == 0 {
                None
            } else if rest < H {
                Some(self.err(
                    at,
                    format!("truncated packet record header ({rest} of {H} bytes)"),
                ))
            } else {
                let caplen = arena
                    .get(pos + 8..pos + 12)
                    .map_or(0, |b| layout.u32(&[b[0], b[1], b[2], b[3]]));
                Some(self.truncated_pcap(at, caplen as usize, rest - H))
            };
            arena.truncate(pos);
            return match err {
                None => {
                    self.state = State::Done;
                    Ok(Stop::End)
                }
                Some(e) => Err(e),
            };
        }
    }

    /// The next record like [`CaptureReader::next_record`], with a
    /// packet's bytes appended to `arena` instead of a fresh allocation:
    /// a pipeline keeps many packets of a stretch of the file in one
    /// buffer it reuses.
    pub fn next_into(&mut self, arena: &mut Vec<u8>) -> Result<Option<Item>, CaptureError> {
        if self.queue.is_empty() {
            if let State::Pcap(layout) = self.state {
                let Some((at, timestamp, caplen, orig_len)) = self.pcap_header(layout)? else {
                    return Ok(None);
                };
                let start = arena.len();
                arena.resize(start + caplen, 0);
                let got = self.read_full(&mut arena[start..])?;
                if got < caplen {
                    arena.truncate(start);
                    return Err(self.truncated_pcap(at, caplen, got));
                }
                return Ok(Some(Item::Packet(PacketMeta {
                    interface: 0,
                    timestamp,
                    orig_len,
                    start,
                    len: caplen,
                })));
            }
        }
        Ok(self.next_record()?.map(|r| match r {
            Record::Packet(p) => {
                let start = arena.len();
                arena.extend_from_slice(&p.data);
                Item::Packet(PacketMeta {
                    interface: p.interface,
                    timestamp: p.timestamp,
                    orig_len: p.orig_len,
                    start,
                    len: p.data.len(),
                })
            }
            other => Item::Other(other),
        }))
    }

    fn truncated_pcap(&self, at: u64, caplen: usize, got: usize) -> CaptureError {
        self.err(
            at,
            format!(
                "truncated packet record: its header announces {caplen} bytes, the file ends after {got}"
            ),
        )
    }

    fn next_pcap(&mut self, layout: Layout) -> Result<Option<Record>, CaptureError> {
        let Some((at, timestamp, caplen, orig_len)) = self.pcap_header(layout)? else {
            return Ok(None);
        };
        let mut data = vec![0u8; caplen];
        let got = self.read_full(&mut data)?;
        if got < data.len() {
            return Err(self.truncated_pcap(at, caplen, got));
        }
        Ok(Some(Record::Packet(Packet {
            interface: 0,
            timestamp,
            orig_len,
            data,
        })))
    }

    /// Reads a pcap record header: its offset, timestamp, captured and
    /// original lengths; `None` at the end of the file.
    #[allow(clippy::type_complexity)]
    fn pcap_header(
        &mut self,
        layout: Layout,
    ) -> Result<Option<(u64, u64, usize, u32)>, CaptureError> {
        let at = self.offset;
        let mut h = [0u8; pcap::RECORD_HEADER_LEN];
        let n = self.read_full(&mut h)?;
        if n == 0 {
            self.state = State::Done;
            return Ok(None);
        }
        if n < h.len() {
            return Err(self.err(
                at,
                format!("truncated packet record header ({n} of {} bytes)", h.len()),
            ));
        }
        let sec = layout.u32(&[h[0], h[1], h[2], h[3]]);
        let frac = layout.u32(&[h[4], h[5], h[6], h[7]]);
        let caplen = layout.u32(&[h[8], h[9], h[10], h[11]]);
        let orig_len = layout.u32(&[h[12], h[13], h[14], h[15]]);
        if caplen > MAX_RECORD {
            return Err(self.err(
                at,
                format!("packet record length {caplen} exceeds the limit of {MAX_RECORD} bytes"),
            ));
        }
        Ok(Some((
            at,
            u64::from(sec) * layout.units() + u64::from(frac),
            caplen as usize,
            orig_len,
        )))
    }

    /// Reads the rest of a pcapng block whose 4-byte type was read at
    /// `at`, checks its framing and returns its body.
    fn read_block_after_type(&mut self, at: u64, block_type: u32) -> Result<Vec<u8>, CaptureError> {
        let name = pcapng::block_name(block_type);
        let body = if block_type == pcapng::SHB {
            // The length is in the byte order that the byte-order magic,
            // right after it, announces (4.1).
            let mut h = [0u8; 8];
            let n = self.read_full(&mut h)?;
            if n < 8 {
                return Err(self.err(at, format!("truncated {name} ({} bytes)", 4 + n)));
            }
            let bom = [h[4], h[5], h[6], h[7]];
            let order = if u32::from_le_bytes(bom) == pcapng::BYTE_ORDER_MAGIC {
                Order { big_endian: false }
            } else if u32::from_be_bytes(bom) == pcapng::BYTE_ORDER_MAGIC {
                Order { big_endian: true }
            } else {
                return Err(self.err(
                    at,
                    format!(
                        "{name} has an invalid byte-order magic {:02x} {:02x} {:02x} {:02x}",
                        bom[0], bom[1], bom[2], bom[3]
                    ),
                ));
            };
            self.state = State::Pcapng(order);
            let len = order.u32(&h, 0).unwrap_or(0);
            self.check_block_len(at, block_type, len)?;
            let mut body = vec![0u8; len as usize - 12];
            body[..4].copy_from_slice(&bom);
            let got = self.read_full(&mut body[4..])?;
            self.finish_block(at, block_type, order, len, body, 4 + got)?
        } else {
            let order = match self.state {
                State::Pcapng(o) => o,
                _ => Order { big_endian: false },
            };
            let mut l = [0u8; 4];
            let n = self.read_full(&mut l)?;
            if n < 4 {
                return Err(self.err(at, format!("truncated block header ({} of 8 bytes)", 4 + n)));
            }
            let len = order.u32(&l, 0).unwrap_or(0);
            self.check_block_len(at, block_type, len)?;
            let mut body = vec![0u8; len as usize - 12];
            let got = self.read_full(&mut body)?;
            self.finish_block(at, block_type, order, len, body, got)?
        };
        Ok(body)
    }

    fn check_block_len(&self, at: u64, block_type: u32, len: u32) -> Result<(), CaptureError> {
        let name = pcapng::block_name(block_type);
        if len < pcapng::min_len(block_type) {
            return Err(self.err(
                at,
                format!("{name} length {len} is shorter than its header"),
            ));
        }
        if len % 4 != 0 {
            return Err(self.err(at, format!("{name} length {len} is not a multiple of 4")));
        }
        if len > MAX_RECORD {
            return Err(self.err(
                at,
                format!("{name} length {len} exceeds the limit of {MAX_RECORD} bytes"),
            ));
        }
        Ok(())
    }

    fn finish_block(
        &mut self,
        at: u64,
        block_type: u32,
        order: Order,
        len: u32,
        mut body: Vec<u8>,
        got: usize,
    ) -> Result<Vec<u8>, CaptureError> {
        let name = pcapng::block_name(block_type);
        let want = body.len();
        if got < want {
            return Err(self.err(
                at,
                format!(
                    "truncated {name}: its length is {len} bytes, the file ends after {}",
                    got + 8
                ),
            ));
        }
        let mut t = [0u8; 4];
        let n = self.read_full(&mut t)?;
        if n < 4 {
            return Err(self.err(
                at,
                format!("truncated {name}: the trailing length field is missing"),
            ));
        }
        let trailer = order.u32(&t, 0).unwrap_or(0);
        if trailer != len {
            return Err(self.err(
                at,
                format!("{name} length {len} does not match its trailing length {trailer}"),
            ));
        }
        body.truncate(want);
        Ok(body)
    }

    fn handle_block(&mut self, at: u64, block_type: u32, body: &[u8]) -> Result<(), CaptureError> {
        let State::Pcapng(order) = self.state else {
            return Ok(());
        };
        let name = pcapng::block_name(block_type);
        let short = || format!("{name} is too short");
        match block_type {
            pcapng::SHB => {
                let major = order
                    .u16(body, 4)
                    .ok_or_else(short)
                    .map_err(|m| self.err(at, m))?;
                if major != 1 {
                    return Err(self.err(
                        at,
                        format!("pcapng major version {major} is not supported (expected 1)"),
                    ));
                }
                self.interfaces.clear();
                self.queue.push_back(Record::Section);
            }
            pcapng::IDB => {
                let iface = pcapng::parse_idb(order, body)
                    .map_err(|m| self.err(at, format!("{name}: {m}")))?;
                if self.interfaces.len() >= MAX_INTERFACES {
                    // A bound on what a section makes the reader hold.
                    return Err(self.err(
                        at,
                        format!(
                            "{name}: more than {MAX_INTERFACES} interface description blocks in one section"
                        ),
                    ));
                }
                self.interfaces.push(iface.clone());
                self.queue.push_back(Record::Interface(iface));
            }
            pcapng::EPB | pcapng::PB => {
                let (interface, ts_at) = if block_type == pcapng::EPB {
                    (order.u32(body, 0), 4)
                } else {
                    (order.u16(body, 0).map(u32::from), 4)
                };
                let fields = (
                    interface,
                    order.u32(body, ts_at),
                    order.u32(body, ts_at + 4),
                    order.u32(body, ts_at + 8),
                    order.u32(body, ts_at + 12),
                );
                let (Some(interface), Some(hi), Some(lo), Some(caplen), Some(orig_len)) = fields
                else {
                    return Err(self.err(at, short()));
                };
                self.check_interface(at, name, interface)?;
                let start = ts_at + 16;
                let Some(data) = body.get(start..start.saturating_add(caplen as usize)) else {
                    return Err(self.err(
                        at,
                        format!(
                            "{name}: captured length {caplen} does not fit in a block of {} bytes",
                            body.len() + 12
                        ),
                    ));
                };
                self.queue.push_back(Record::Packet(Packet {
                    interface,
                    timestamp: (u64::from(hi) << 32) | u64::from(lo),
                    orig_len,
                    data: data.to_vec(),
                }));
            }
            pcapng::SPB => {
                self.check_interface(at, name, 0)?;
                let orig_len = order
                    .u32(body, 0)
                    .ok_or_else(short)
                    .map_err(|m| self.err(at, m))?;
                let snaplen = self.interfaces.first().map_or(0, |i| i.snaplen);
                // 4.4: the captured length is the smaller of the original
                // length and the interface's snap length; the block may
                // also hold less.
                let mut caplen = (orig_len as usize).min(body.len() - 4);
                if snaplen != 0 {
                    caplen = caplen.min(snaplen as usize);
                }
                self.queue.push_back(Record::Packet(Packet {
                    interface: 0,
                    timestamp: 0,
                    orig_len,
                    data: body.get(4..4 + caplen).unwrap_or_default().to_vec(),
                }));
            }
            // Name resolution, statistics, custom and unknown blocks carry
            // nothing a frame pipeline needs (3.1: skip what you do not know).
            _ => {}
        }
        Ok(())
    }

    fn check_interface(&self, at: u64, name: &str, interface: u32) -> Result<(), CaptureError> {
        if (interface as usize) < self.interfaces.len() {
            return Ok(());
        }
        Err(self.err(
            at,
            if self.interfaces.is_empty() {
                format!("{name} refers to interface {interface}, but no interface description block precedes it")
            } else {
                format!(
                    "{name} refers to interface {interface}, but the section describes only {}",
                    self.interfaces.len()
                )
            },
        ))
    }
}

impl Iterator for CaptureReader {
    type Item = Result<Record, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// An I/O error as one short phrase.
pub(crate) fn io_message(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => {
            // gzip errors arrive as InvalidInput/InvalidData with a message.
            let s = e.to_string();
            if s.contains("corrupt") || s.contains("invalid gzip") {
                format!("gzip data is corrupt ({s})")
            } else {
                s
            }
        }
    }
}
