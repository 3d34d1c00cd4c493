//! Channel captures: every PPDU a channel carries, written as a classic
//! pcap file (draft-ietf-opsawg-pcap) with nanosecond timestamps in virtual
//! time and a radiotap header (link type 127, LINKTYPE_IEEE802_11_RADIOTAP)
//! giving the rate, the channel and the preamble of each frame.
//!
//! The simulator calls a channel observer as each PPDU starts
//! ([`crate::Simulator::set_observer`]); [`Recorder::observer`] makes one
//! that keeps the frames until the trial ends. Timestamps are the PPDU's start in virtual
//! time since the start of the run (so Wireshark shows dates in January
//! 1970). The medium carries MPDUs without their FCS, so the radiotap Flags
//! say none is present.

use crate::experiment::SharedObserver;
use crate::phy::{PhyProfile, PhyStandard, Rate};
use crate::sim::AirFrame;
use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;
use wisec_wire::radiotap::{Channel, RadiotapFlags, RadiotapRepr};

/// LINKTYPE_IEEE802_11_RADIOTAP.
pub const LINKTYPE_RADIOTAP: u32 = 127;
/// The nanosecond-resolution pcap magic number.
pub const MAGIC_NANO: u32 = 0xa1b2_3c4d;
/// Snapshot length written in the file header.
pub const SNAPLEN: u32 = 65_535;

/// The radio channel a capture describes: its centre frequency and the
/// PHY family, from which the radiotap Channel flags follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RadioChannel {
    /// Centre frequency in MHz.
    pub freq: u16,
    /// PHY family.
    pub standard: PhyStandard,
    /// Short preamble for DSSS/CCK rates above 1 Mb/s.
    pub short_preamble: bool,
}

impl RadioChannel {
    /// The channel a trial described.
    pub fn from_info(info: &crate::experiment::ChannelInfo) -> RadioChannel {
        RadioChannel {
            freq: info.freq_mhz,
            standard: info.phy,
            short_preamble: false,
        }
    }

    /// Channel 1 (2412 MHz) for 802.11b/g, channel 36 (5180 MHz) for
    /// 802.11a (IEEE Std 802.11-2020, 15.4.4.3 and 17.3.8.4.2).
    pub fn for_profile(phy: &PhyProfile) -> RadioChannel {
        RadioChannel {
            freq: match phy.standard {
                PhyStandard::A => 5180,
                PhyStandard::N if phy.ht.band == crate::phy::Band::Ghz5 => 5180,
                PhyStandard::B | PhyStandard::G | PhyStandard::N => 2412,
            },
            standard: phy.standard,
            short_preamble: phy.short_preamble,
        }
    }

    /// The radiotap header of a frame sent at `rate` on this channel.
    pub fn radiotap(&self, rate: Rate) -> RadiotapRepr {
        let band = if self.freq >= 4900 {
            Channel::GHZ5
        } else {
            Channel::GHZ2
        };
        let modulation = if rate.is_ofdm() {
            Channel::OFDM
        } else {
            Channel::CCK
        };
        let mut flags = 0;
        if self.short_preamble && rate.is_dsss() && rate != Rate::DSSS_1 {
            flags |= RadiotapFlags::SHORT_PREAMBLE;
        }
        RadiotapRepr {
            flags: Some(RadiotapFlags(flags)),
            // The Rate field holds legacy rates only; an HT MCS would go in
            // the MCS field, which this writer leaves out.
            rate: rate.mcs().is_none().then_some(rate.0),
            channel: Some(Channel {
                freq: self.freq,
                flags: band | modulation,
            }),
            dbm_antenna_signal: None,
            tx_flags: None,
        }
    }
}

/// A pcap file being written, one record per MPDU.
pub struct PcapWriter<W: Write> {
    out: W,
    packets: u64,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the file header (nanosecond magic, version 2.4, link type
    /// 127) to `out`.
    pub fn new(mut out: W) -> io::Result<PcapWriter<W>> {
        let mut h = [0u8; 24];
        h[0..4].copy_from_slice(&MAGIC_NANO.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes());
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        // thiszone and sigfigs stay 0.
        h[16..20].copy_from_slice(&SNAPLEN.to_le_bytes());
        h[20..24].copy_from_slice(&LINKTYPE_RADIOTAP.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter { out, packets: 0 })
    }

    /// Writes one record: `radiotap` then `mpdu`, at `ns` nanoseconds.
    pub fn write(&mut self, ns: u64, radiotap: &RadiotapRepr, mpdu: &[u8]) -> io::Result<()> {
        let mut rt = [0u8; 32];
        let n = radiotap
            .emit(&mut rt)
            .map_err(|e| io::Error::other(format!("radiotap: {e:?}")))?;
        let len = u32::try_from(n + mpdu.len())
            .map_err(|_| io::Error::other("frame too long for pcap"))?;
        let secs = u32::try_from(ns / 1_000_000_000)
            .map_err(|_| io::Error::other("timestamp beyond 2106"))?;
        let mut h = [0u8; 16];
        h[0..4].copy_from_slice(&secs.to_le_bytes());
        h[4..8].copy_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        h[8..12].copy_from_slice(&len.to_le_bytes());
        h[12..16].copy_from_slice(&len.to_le_bytes());
        self.out.write_all(&h)?;
        self.out.write_all(rt.get(..n).unwrap_or_default())?;
        self.out.write_all(mpdu)?;
        self.packets += 1;
        Ok(())
    }

    /// Records written so far.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Flushes and returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Every PPDU of a trial's channels, kept (the MPDUs are shared, not
/// copied) until the trial has said what its channels are, then written
/// as one pcap per channel.
#[derive(Debug, Default)]
pub struct Recorder {
    frames: Vec<(usize, u64, Rate, Arc<[u8]>)>,
    limit: usize,
    dropped: u64,
}

impl Recorder {
    /// A recorder that keeps at most `limit` MPDUs (and counts the rest).
    pub fn new(limit: usize) -> Rc<RefCell<Recorder>> {
        Rc::new(RefCell::new(Recorder {
            frames: Vec::new(),
            limit,
            dropped: 0,
        }))
    }

    /// Records every MPDU of `frame`.
    pub fn record(&mut self, frame: &AirFrame<'_>) {
        for mpdu in frame.mpdus {
            if self.frames.len() < self.limit {
                self.frames
                    .push((frame.channel.0, frame.start.0, frame.rate, Arc::clone(mpdu)));
            } else {
                self.dropped += 1;
            }
        }
    }

    /// An observer for [`crate::experiment::TrialEnv::observer`].
    pub fn observer(rec: &Rc<RefCell<Recorder>>) -> SharedObserver {
        let r = Rc::clone(rec);
        Rc::new(RefCell::new(move |f: &AirFrame<'_>| {
            r.borrow_mut().record(f)
        }))
    }

    /// MPDUs recorded.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// MPDUs left out past the limit.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The channels that carried frames, in order.
    pub fn channels(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.frames.iter().map(|f| f.0).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Writes the frames of `channel` to `path` as a radiotap pcap,
    /// returning the number of records.
    pub fn write_channel(
        &self,
        channel: usize,
        radio: RadioChannel,
        path: &Path,
    ) -> io::Result<u64> {
        let f = File::create(path)?;
        let (n, _) = self.channel_to(channel, radio, BufWriter::new(f))?;
        Ok(n)
    }

    /// The pcap file [`Recorder::write_channel`] writes, in memory.
    pub fn channel_pcap(&self, channel: usize, radio: RadioChannel) -> io::Result<Vec<u8>> {
        Ok(self.channel_to(channel, radio, Vec::new())?.1)
    }

    fn channel_to<W: Write>(
        &self,
        channel: usize,
        radio: RadioChannel,
        out: W,
    ) -> io::Result<(u64, W)> {
        let mut w = PcapWriter::new(out)?;
        for (_, ns, rate, mpdu) in self.frames.iter().filter(|f| f.0 == channel) {
            w.write(*ns, &radio.radiotap(*rate), mpdu)?;
        }
        let n = w.packets();
        Ok((n, w.finish()?))
    }
}

/// One record of a radiotap pcap: when, and the 802.11 frame with the
/// radiotap header removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcapRecord {
    /// Nanoseconds since the Unix epoch (or since the run's start, for a
    /// simulated trial's capture).
    pub ns: u64,
    /// The MPDU.
    pub mpdu: Vec<u8>,
}

/// Reads a classic pcap with radiotap headers, as [`PcapWriter`] writes it
/// (microsecond files are read too, either byte order). A record cut
/// short at the end of the file (a capture still being written) ends the
/// list.
pub fn read_radiotap(path: &Path) -> io::Result<Vec<PcapRecord>> {
    let bytes = std::fs::read(path)?;
    parse_radiotap(&bytes).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {e}", path.display()),
        )
    })
}

/// [`read_radiotap`] on bytes.
pub fn parse_radiotap(b: &[u8]) -> Result<Vec<PcapRecord>, String> {
    let magic = b.get(0..4).ok_or("shorter than a pcap header")?;
    let (le, nano) = match u32::from_le_bytes([magic[0], magic[1], magic[2], magic[3]]) {
        MAGIC_NANO => (true, true),
        0xa1b2_c3d4 => (true, false),
        0x4d3c_b2a1 => (false, true),
        0xd4c3_b2a1 => (false, false),
        m => return Err(format!("not a pcap file (magic {m:#010x})")),
    };
    let u32_at = |o: usize| -> Option<u32> {
        let x: [u8; 4] = b.get(o..o + 4)?.try_into().ok()?;
        Some(if le {
            u32::from_le_bytes(x)
        } else {
            u32::from_be_bytes(x)
        })
    };
    if u32_at(20).ok_or("shorter than a pcap header")? != LINKTYPE_RADIOTAP {
        return Err("link type is not 802.11 with radiotap (127)".into());
    }
    let mut out = Vec::new();
    let mut o = 24;
    while let (Some(secs), Some(frac), Some(len)) = (u32_at(o), u32_at(o + 4), u32_at(o + 8)) {
        let Some(data) = b.get(o + 16..o + 16 + len as usize) else {
            break;
        };
        let sub = if nano {
            u64::from(frac)
        } else {
            u64::from(frac) * 1000
        };
        let ns = u64::from(secs) * 1_000_000_000 + sub;
        let rt = wisec_wire::radiotap::Radiotap::new_checked(data)
            .map_err(|e| format!("record at offset {o}: radiotap: {e:?}"))?;
        out.push(PcapRecord {
            ns,
            mpdu: rt.payload().to_vec(),
        });
        o += 16 + len as usize;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_back_as_written() {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        let ch = RadioChannel::for_profile(&PhyProfile::b());
        w.write(
            1_700_000_000_123_456_789,
            &ch.radiotap(Rate::CCK_11),
            &[0x08, 0, 1, 2],
        )
        .unwrap();
        w.write(
            1_700_000_001_000_000_000,
            &ch.radiotap(Rate::DSSS_1),
            &[0x80, 0],
        )
        .unwrap();
        let mut b = w.finish().unwrap();
        let r = parse_radiotap(&b).unwrap();
        assert_eq!(
            r,
            vec![
                PcapRecord {
                    ns: 1_700_000_000_123_456_789,
                    mpdu: vec![0x08, 0, 1, 2]
                },
                PcapRecord {
                    ns: 1_700_000_001_000_000_000,
                    mpdu: vec![0x80, 0]
                },
            ]
        );
        // A record cut short ends the list; a wrong link type is an error.
        b.truncate(b.len() - 1);
        assert_eq!(parse_radiotap(&b).unwrap().len(), 1);
        b[20] = 1;
        assert!(parse_radiotap(&b).is_err());
        assert!(parse_radiotap(b"abc").is_err());
    }

    #[test]
    fn file_and_record_layout() {
        // draft-ietf-opsawg-pcap section 4: magic, 2.4, 0, 0, snaplen,
        // link type; section 5: seconds, nanoseconds, lengths.
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        let ch = RadioChannel {
            freq: 2412,
            standard: PhyStandard::B,
            short_preamble: true,
        };
        let rt = ch.radiotap(Rate::CCK_11);
        w.write(1_500_000_123, &rt, &[0xd4, 0, 0, 0]).unwrap();
        let b = w.finish().unwrap();
        assert_eq!(&b[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(&b[4..8], &[2, 0, 4, 0]);
        assert_eq!(&b[20..24], &[127, 0, 0, 0]);
        assert_eq!(&b[24..28], &[1, 0, 0, 0]);
        assert_eq!(
            u32::from_le_bytes(b[28..32].try_into().unwrap()),
            500_000_123
        );
        // Flags, Rate, Channel: 8 + 1 + 1 + 4 (aligned to 2) = 14 octets.
        let len = u32::from_le_bytes(b[32..36].try_into().unwrap());
        assert_eq!(len, 14 + 4);
        assert_eq!(b.len(), 24 + 16 + 18);
        let r = wisec_wire::radiotap::Radiotap::new_checked(&b[40..]).unwrap();
        assert_eq!(r.rate(), Some(22));
        assert_eq!(
            r.flags(),
            Some(RadiotapFlags(RadiotapFlags::SHORT_PREAMBLE))
        );
        assert_eq!(
            r.channel(),
            Some(Channel {
                freq: 2412,
                flags: Channel::CCK | Channel::GHZ2
            })
        );
        assert!(!r.has_fcs());
        assert_eq!(r.payload(), &[0xd4, 0, 0, 0]);
    }

    #[test]
    fn channel_flags_per_band_and_rate() {
        let a = RadioChannel::for_profile(&PhyProfile::a());
        let c = a.radiotap(Rate::OFDM_54).channel.unwrap();
        assert_eq!((c.freq, c.flags), (5180, Channel::OFDM | Channel::GHZ5));
        let g = RadioChannel::for_profile(&PhyProfile::g());
        assert_eq!(
            g.radiotap(Rate::OFDM_6).channel.unwrap().flags,
            Channel::OFDM | Channel::GHZ2
        );
        // 1 Mb/s always uses the long preamble.
        assert_eq!(g.radiotap(Rate::DSSS_1).flags, Some(RadiotapFlags(0)));
        assert_eq!(
            g.radiotap(Rate::DSSS_2).flags,
            Some(RadiotapFlags(RadiotapFlags::SHORT_PREAMBLE))
        );
    }
}
