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
    format: Format,
    pcap_iface: Option<Interface>,
    interfaces: usize,
    sections: usize,
    buf: Vec<u8>,
}

impl<W: Write> CaptureWriter<W> {
    /// A writer of `format` into `out`.
    pub fn new(out: W, format: Format) -> CaptureWriter<W> {
        CaptureWriter {
            out,
            format,
            pcap_iface: None,
            interfaces: 0,
            sections: 0,
            buf: Vec::with_capacity(4096),
        }
    }

    /// Writes one record.
    pub fn write_record(&mut self, record: &Record) -> io::Result<()> {
        match record {
            Record::Section => self.write_section(),
            Record::Interface(i) => self.write_interface(i),
            Record::Packet(p) => self.write_packet(p),
        }
    }

    /// Starts a section (pcapng); for pcap only the first is accepted.
    pub fn write_section(&mut self) -> io::Result<()> {
        self.sections += 1;
        self.interfaces = 0;
        match self.format {
            Format::Pcapng => {
                self.buf.clear();
                pcapng::push_block(&mut self.buf, pcapng::SHB, &pcapng::shb_body());
                self.out.write_all(&self.buf)
            }
            Format::Pcap if self.sections > 1 => Err(invalid("pcap holds one section only")),
            Format::Pcap => Ok(()),
        }
    }

    /// Describes the next interface of the section.
    pub fn write_interface(&mut self, iface: &Interface) -> io::Result<()> {
        match self.format {
            Format::Pcapng => {
                if self.sections == 0 {
                    self.write_section()?;
                }
                self.interfaces += 1;
                self.buf.clear();
                pcapng::push_block(&mut self.buf, pcapng::IDB, &pcapng::idb_body(iface));
                self.out.write_all(&self.buf)
            }
            Format::Pcap => {
                if self.pcap_iface.is_some() {
                    return Err(invalid("pcap holds one interface only"));
                }
                self.out.write_all(&pcap::file_header(iface))?;
                self.pcap_iface = Some(iface.clone());
                Ok(())
            }
        }
    }

    /// Writes a packet of an interface already described.
    pub fn write_packet(&mut self, p: &Packet) -> io::Result<()> {
        let caplen = u32::try_from(p.data.len()).map_err(|_| invalid("packet too long"))?;
        match self.format {
            Format::Pcapng => {
                if (p.interface as usize) >= self.interfaces {
                    return Err(invalid("packet of an interface not yet described"));
                }
                self.buf.clear();
                let body = pcapng::epb_body(p.interface, p.timestamp, p.orig_len, &p.data);
                pcapng::push_block(&mut self.buf, pcapng::EPB, &body);
                self.out.write_all(&self.buf)
            }
            Format::Pcap => {
                let iface = self
                    .pcap_iface
                    .as_ref()
                    .ok_or_else(|| invalid("packet before the pcap file header"))?;
                let units = if iface.tsresol == 9 {
                    1_000_000_000
                } else {
                    1_000_000
                };
                let sec = u32::try_from(p.timestamp / units).unwrap_or(u32::MAX);
                let frac = (p.timestamp % units) as u32;
                let mut h = [0u8; pcap::RECORD_HEADER_LEN];
                h[0..4].copy_from_slice(&sec.to_le_bytes());
                h[4..8].copy_from_slice(&frac.to_le_bytes());
                h[8..12].copy_from_slice(&caplen.to_le_bytes());
                h[12..16].copy_from_slice(&p.orig_len.max(caplen).to_le_bytes());
                self.out.write_all(&h)?;
                self.out.write_all(&p.data)
            }
        }
    }

    /// Flushes and returns the underlying writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

fn invalid(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg.to_string())
}
