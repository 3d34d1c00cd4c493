//! Capture files: classic pcap and pcapng, plain or gzip-compressed.
//!
//! [`CaptureReader`] streams a file record by record (it never holds more
//! than one packet in memory) and reports every defect with the file name
//! and the byte offset where it starts. [`CaptureWriter`] writes the same
//! format back, keeping each interface's link type, timestamp resolution
//! and FCS length, so a pipeline can change frames and leave the rest of
//! the capture as it was.
//!
//! Formats: the pcap file format of draft-ietf-opsawg-pcap and the pcapng
//! format of draft-ietf-opsawg-pcapng (sections, interface description,
//! enhanced, simple and obsolete packet blocks).

mod pcap;
mod pcapng;
mod reader;
mod writer;

pub use reader::{CaptureReader, Progress, Stop};
pub use writer::CaptureWriter;
pub(crate) use writer::Encoder;

use std::fmt;

/// Link type of IEEE 802.11 frames without a radio header
/// (LINKTYPE_IEEE802_11).
pub const LINKTYPE_IEEE802_11: u16 = 105;
/// Link type of IEEE 802.11 frames behind a radiotap header
/// (LINKTYPE_IEEE802_11_RADIOTAP).
pub const LINKTYPE_RADIOTAP: u16 = 127;

/// A readable name for the link types people meet most.
pub fn link_type_name(link_type: u16) -> &'static str {
    match link_type {
        0 => "null/loopback",
        1 => "Ethernet",
        101 => "raw IP",
        105 => "IEEE 802.11",
        113 => "Linux cooked",
        119 => "Prism header + IEEE 802.11",
        127 => "radiotap + IEEE 802.11",
        163 => "AVS header + IEEE 802.11",
        192 => "PPI",
        276 => "Linux cooked v2",
        _ => "unknown",
    }
}

/// The container format of a capture file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Classic libpcap format.
    Pcap,
    /// pcapng.
    Pcapng,
}

/// What the capture says about one capture interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    /// The link type (LINKTYPE_* value).
    pub link_type: u16,
    /// Maximum captured length, 0 for unlimited.
    pub snaplen: u32,
    /// The timestamp resolution as pcapng's `if_tsresol` byte: bit 7 clear
    /// means 10^-n seconds, set means 2^-n. Classic pcap is 6 or 9.
    pub tsresol: u8,
    /// True when the input stated `if_tsresol` explicitly (pcapng).
    pub tsresol_explicit: bool,
    /// FCS length in bytes at the end of each frame when the capture says
    /// (pcapng `if_fcslen`, or the FCS bits of a pcap link-type field).
    pub fcslen: Option<u8>,
    /// pcapng `if_tsoffset`, seconds added to every timestamp.
    pub tsoffset: Option<i64>,
    /// The raw upper bits of a classic pcap link-type field (FCS
    /// information), written back unchanged.
    pub pcap_link_flags: u32,
}

impl Interface {
    /// An interface of `link_type` and `snaplen` as classic pcap states
    /// it: microsecond timestamps (not stated explicitly), no FCS length,
    /// no time offset, no link-type flags.
    pub fn new(link_type: u16, snaplen: u32) -> Interface {
        Interface {
            link_type,
            snaplen,
            tsresol: 6,
            tsresol_explicit: false,
            fcslen: None,
            tsoffset: None,
            pcap_link_flags: 0,
        }
    }
}

/// One captured packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    /// Index of the interface in the current section.
    pub interface: u32,
    /// Timestamp in units of the interface's resolution since the epoch.
    pub timestamp: u64,
    /// Length of the packet on the wire (at least `data.len()` unless the
    /// capture is inconsistent).
    pub orig_len: u32,
    /// The captured bytes.
    pub data: Vec<u8>,
}

impl Packet {
    /// True when fewer bytes were captured than were on the wire.
    pub fn is_truncated(&self) -> bool {
        (self.data.len() as u64) < u64::from(self.orig_len)
    }

    /// Replaces the captured bytes by `data`, adjusting the original length
    /// by the same amount so that a complete packet stays complete.
    pub fn replace_data(&mut self, data: Vec<u8>) {
        let old = self.data.len() as i64;
        let new = data.len() as i64;
        let orig = i64::from(self.orig_len) + (new - old);
        self.orig_len = u32::try_from(orig.max(new)).unwrap_or(u32::MAX);
        self.data = data;
    }
}

/// A packet whose bytes [`CaptureReader::next_into`] appended to a
/// buffer of the caller: `arena[start..start + len]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketMeta {
    /// Index of the interface in the current section.
    pub interface: u32,
    /// Timestamp in units of the interface's resolution since the epoch.
    pub timestamp: u64,
    /// Length of the packet on the wire.
    pub orig_len: u32,
    /// Where the captured bytes start in the buffer.
    pub start: usize,
    /// Number of captured bytes.
    pub len: usize,
}

impl PacketMeta {
    /// True when fewer bytes were captured than were on the wire.
    pub fn is_truncated(&self) -> bool {
        (self.len as u64) < u64::from(self.orig_len)
    }
}

/// What [`CaptureReader::next_into`] read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A packet, its bytes in the caller's buffer.
    Packet(PacketMeta),
    /// A section or interface record (never [`Record::Packet`]).
    Other(Record),
}

/// One item of a capture, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// A new section starts (pcapng SHB; once at the start of a pcap file).
    /// Interface indices restart at 0.
    Section,
    /// An interface is described; its index is the number of interfaces
    /// seen before it in the section.
    Interface(Interface),
    /// A packet.
    Packet(Packet),
}

/// A defect of a capture file or an I/O failure, naming the file and,
/// where one applies, the byte offset (in the uncompressed stream).
#[derive(Debug)]
pub struct CaptureError {
    /// The file name as given by the user.
    pub file: String,
    /// Offset of the defective structure.
    pub offset: Option<u64>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(o) => write!(f, "{}: offset {}: {}", self.file, o, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for CaptureError {}

/// The largest packet or block accepted: far above any 802.11 frame, low
/// enough that a corrupt length field cannot exhaust memory.
pub const MAX_RECORD: u32 = 16 << 20;

#[cfg(test)]
mod tests;
