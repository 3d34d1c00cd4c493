//! Capture writer: the same container format as the input, little-endian.

use super::pcap;
use super::pcapng;
use super::{Format, Interface, Packet, Record};
use std::io::{self, Write};

/// Writes records in pcap or pcapng format.
///
/// pcap output keeps the input's link-type field (with its FCS bits) and
/// timestamp resolution; pcapng output keeps each interface's link type,
/// `if_tsresol`, `if_fcslen` and `if_tsoffset`, and the section structure.
/// Packets are written as enhanced packet blocks without options.
pub struct CaptureWriter<W: Write> {
    out: W,
    enc: Encoder,
    buf: Vec<u8>,
}

/// The state of a capture's encoding (format, sections, interfaces):
/// appends encoded records to any byte buffer, so that a pipeline can
/// encode on one thread and write on another.
pub(crate) struct Encoder {
    format: Format,
    pcap_iface: Option<Interface>,
    /// A pcapng interface written as pcap whose timestamps are not in
    /// micro- or nanoseconds: its resolution and offset, to convert them
    /// to nanoseconds.
    pcap_convert: Option<(u8, i64)>,
    interfaces: usize,
    sections: usize,
}

impl<W: Write> CaptureWriter<W> {
    /// A writer of `format` into `out`.
    pub fn new(out: W, format: Format) -> CaptureWriter<W> {
        CaptureWriter {
            out,
            enc: Encoder {
                format,
                pcap_iface: None,
                pcap_convert: None,
                interfaces: 0,
                sections: 0,
            },
            buf: Vec::with_capacity(4096),
        }
    }

    /// Writes one record.
    pub fn write_record(&mut self, record: &Record) -> io::Result<()> {
        self.buf.clear();
        self.enc.record(&mut self.buf, record)?;
        self.out.write_all(&self.buf)
    }

    /// Starts a section (pcapng); for pcap only the first is accepted.
    pub fn write_section(&mut self) -> io::Result<()> {
        self.write_record(&Record::Section)
    }

    /// Describes the next interface of the section.
    pub fn write_interface(&mut self, iface: &Interface) -> io::Result<()> {
        self.buf.clear();
        self.enc.interface(&mut self.buf, iface)?;
        self.out.write_all(&self.buf)
    }

    /// Writes a packet of an interface already described.
    pub fn write_packet(&mut self, p: &Packet) -> io::Result<()> {
        self.buf.clear();
        self.enc.packet(
            &mut self.buf,
            p.interface,
            p.timestamp,
            p.orig_len,
            &[&p.data],
        )?;
        self.out.write_all(&self.buf)
    }

    /// The encoder and the output, apart.
    pub(crate) fn split(&mut self) -> (&mut Encoder, &mut W) {
        (&mut self.enc, &mut self.out)
    }

    /// Flushes and returns the underlying writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

impl Encoder {
    /// Appends one record.
    pub(crate) fn record(&mut self, out: &mut Vec<u8>, record: &Record) -> io::Result<()> {
        match record {
            Record::Section => self.section(out),
            Record::Interface(i) => self.interface(out, i),
            Record::Packet(p) => self.packet(out, p.interface, p.timestamp, p.orig_len, &[&p.data]),
        }
    }

    fn section(&mut self, out: &mut Vec<u8>) -> io::Result<()> {
        self.sections += 1;
        self.interfaces = 0;
        match self.format {
            Format::Pcapng => {
                pcapng::push_block(out, pcapng::SHB, &pcapng::shb_body());
                Ok(())
            }
            Format::Pcap if self.sections > 1 => Err(invalid(
                "a pcap file holds one section and this capture has several; write a .pcapng",
            )),
            Format::Pcap => Ok(()),
        }
    }

    fn interface(&mut self, out: &mut Vec<u8>, iface: &Interface) -> io::Result<()> {
        match self.format {
            Format::Pcapng => {
                if self.sections == 0 {
                    self.section(out)?;
                }
                self.interfaces += 1;
                pcapng::push_block(out, pcapng::IDB, &pcapng::idb_body(iface));
                Ok(())
            }
            Format::Pcap => {
                if self.pcap_iface.is_some() {
                    return Err(invalid(
                        "a pcap file holds one interface and this capture has several; write a .pcapng",
                    ));
                }
                // pcap has micro- or nanosecond timestamps and no offset:
                // any other resolution or an offset becomes nanoseconds.
                let mut iface = iface.clone();
                if !matches!(iface.tsresol, 6 | 9) || iface.tsoffset.is_some_and(|o| o != 0) {
                    self.pcap_convert = Some((iface.tsresol, iface.tsoffset.unwrap_or(0)));
                    iface.tsresol = 9;
                    iface.tsoffset = None;
                }
                out.extend_from_slice(&pcap::file_header(&iface));
                self.pcap_iface = Some(iface);
                Ok(())
            }
        }
    }

    /// Appends a packet whose captured bytes are the concatenation of
    /// `parts`. On error nothing is appended.
    pub(crate) fn packet(
        &mut self,
        out: &mut Vec<u8>,
        interface: u32,
        timestamp: u64,
        orig_len: u32,
        parts: &[&[u8]],
    ) -> io::Result<()> {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let caplen = u32::try_from(len).map_err(|_| invalid("packet too long"))?;
        match self.format {
            Format::Pcapng => {
                if (interface as usize) >= self.interfaces {
                    return Err(invalid("packet of an interface not yet described"));
                }
                // Enhanced Packet Block (draft-ietf-opsawg-pcapng, 4.3):
                // 28 bytes of fields, the data padded to 32 bits, the
                // trailing length.
                let padded = len.div_ceil(4) * 4;
                let total = u32::try_from(32 + padded).map_err(|_| invalid("packet too long"))?;
                out.reserve(32 + padded);
                out.extend_from_slice(&pcapng::EPB.to_le_bytes());
                out.extend_from_slice(&total.to_le_bytes());
                out.extend_from_slice(&interface.to_le_bytes());
                out.extend_from_slice(&((timestamp >> 32) as u32).to_le_bytes());
                out.extend_from_slice(&(timestamp as u32).to_le_bytes());
                out.extend_from_slice(&caplen.to_le_bytes());
                out.extend_from_slice(&orig_len.to_le_bytes());
                for p in parts {
                    out.extend_from_slice(p);
                }
                out.resize(out.len() + (padded - len), 0);
                out.extend_from_slice(&total.to_le_bytes());
                Ok(())
            }
            Format::Pcap => {
                let iface = self
                    .pcap_iface
                    .as_ref()
                    .ok_or_else(|| invalid("packet before the pcap file header"))?;
                let timestamp = match self.pcap_convert {
                    Some((r, off)) => to_nanos(timestamp, r, off),
                    None => timestamp,
                };
                // Constant divisors: a multiplication each, not a division
                // per packet.
                let (sec, frac) = if iface.tsresol == 9 {
                    (timestamp / 1_000_000_000, timestamp % 1_000_000_000)
                } else {
                    (timestamp / 1_000_000, timestamp % 1_000_000)
                };
                let sec = u32::try_from(sec).unwrap_or(u32::MAX);
                let mut h = [0u8; pcap::RECORD_HEADER_LEN];
                h[..4].copy_from_slice(&sec.to_le_bytes());
                h[4..8].copy_from_slice(&(frac as u32).to_le_bytes());
                h[8..12].copy_from_slice(&caplen.to_le_bytes());
                h[12..].copy_from_slice(&orig_len.max(caplen).to_le_bytes());
                out.reserve(pcap::RECORD_HEADER_LEN + len);
                out.extend_from_slice(&h);
                for p in parts {
                    out.extend_from_slice(p);
                }
                Ok(())
            }
        }
    }
}

/// A timestamp of resolution `tsresol` (pcapng `if_tsresol`) plus
/// `offset` seconds, in nanoseconds.
fn to_nanos(ts: u64, tsresol: u8, offset: i64) -> u64 {
    let ns = if tsresol & 0x80 == 0 {
        let per_sec = 10u128.pow(u32::from(tsresol.min(19)));
        u128::from(ts) * 1_000_000_000 / per_sec
    } else {
        (u128::from(ts) * 1_000_000_000) >> u32::from(tsresol & 0x7f).min(127)
    };
    let ns = ns as i128 + i128::from(offset) * 1_000_000_000;
    ns.clamp(0, i128::from(u64::MAX)) as u64
}

fn invalid(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg.to_string())
}
