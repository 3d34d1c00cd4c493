//! `wisec analyze CAPTURE`: seed 000's Table 3 breakdown (exchange groups,
//! access delays, retransmissions, RTS/CTS, BlockAck groups) of any
//! 802.11 capture, radiotap or bare, pcap or pcapng, gzip or not.
//!
//! The analysis itself is `wisec_lab::analyze`; this module reads the
//! capture: the MPDU of each packet through [`crate::decrypt::link`], its time from
//! the radiotap TSFT field when the capture's first frame has one, from
//! the pcap timestamp otherwise.

use crate::capture::{CaptureReader, Interface, Record};
use crate::decrypt::link::{self, FcsMode, Unusable};
use crate::error::Failure;
use anyhow::anyhow;
use std::path::{Path, PathBuf};
use wisec_lab::analyze::{Analysis, Analyzer, MALFORMED_LISTED};

/// Arguments of `wisec analyze`.
#[derive(Debug, clap::Args)]
pub struct AnalyzeArgs {
    /// The capture (pcap or pcapng, link type 105 or 127, optionally
    /// gzip-compressed).
    pub capture: PathBuf,
    /// Print the whole analysis as JSON (its `rows` are the table).
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the table as CSV (RFC 4180): the columns component, k,
    /// packets, groups and delay_us, as the JSON's rows name them.
    #[arg(long)]
    pub csv: bool,
}

/// The columns of `--csv`: the fields of the JSON's rows.
pub const CSV_COLUMNS: [&str; 5] = ["component", "k", "packets", "groups", "delay_us"];

/// A packet timestamp in nanoseconds, from the interface's resolution.
fn timestamp_ns(iface: &Interface, ts: u64) -> u64 {
    let r = iface.tsresol;
    let ns = if r & 0x80 == 0 {
        let per_sec = 10u128.pow(u32::from(r.min(19)));
        u128::from(ts) * 1_000_000_000 / per_sec
    } else {
        let shift = u32::from(r & 0x7f).min(127);
        (u128::from(ts) * 1_000_000_000) >> shift
    };
    let off = iface.tsoffset.unwrap_or(0).saturating_mul(1_000_000_000);
    (ns as i128 + i128::from(off)).clamp(0, i128::from(u64::MAX)) as u64
}

fn why(u: Unusable) -> &'static str {
    match u {
        Unusable::BadRadiotap => "malformed radiotap header",
        Unusable::Padded => "radiotap says the header is padded",
        Unusable::BadFcs => "bad FCS",
        Unusable::Short => "shorter than its framing announces",
        Unusable::LinkType => "not an 802.11 link type",
        Unusable::BadHeader => "malformed Prism, AVS or PPI header",
    }
}

/// Reads `path` and analyses its frames as they stream past, in memory
/// that does not grow with the capture. Packets that cannot be read are
/// listed in [`Analysis::malformed`]; a capture that ends in the middle of
/// a record is analysed up to there, with the defect listed too.
pub fn analyze_file(path: &Path) -> anyhow::Result<Analysis> {
    let mut reader = CaptureReader::open(path)?;
    let mut ifaces: Vec<Interface> = Vec::new();
    let mut z = Analyzer::new();
    let mut number = 0u64;
    let mut use_tsft: Option<bool> = None;
    loop {
        let rec = match reader.next_record() {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => {
                z.note_malformed(number + 1, e.to_string());
                break;
            }
        };
        let mut p = match rec {
            Record::Section => {
                ifaces.clear();
                continue;
            }
            Record::Interface(i) => {
                // Bounded: the reader refuses more than MAX_INTERFACES a section.
                ifaces.push(i);
                continue;
            }
            Record::Packet(p) => p,
        };
        number += 1;
        let Some(iface) = ifaces.get(p.interface as usize) else {
            z.note_malformed(
                number,
                "refers to an interface no interface description block describes".into(),
            );
            continue;
        };
        // Radiotap padding out (the analysis reads the MPDU).
        if let Some(pad) = link::unpad(iface, &mut p.data) {
            p.data.drain(..pad.len);
        }
        let framing = match link::locate_unpadded(iface, FcsMode::Auto, &p.data) {
            Ok(f) => f,
            Err(u) => {
                z.note_malformed(number, why(u).to_string());
                continue;
            }
        };
        let tsft = (framing.prefix > 0)
            .then(|| wisec_wire::radiotap::Radiotap::new_checked(&p.data[..]).ok())
            .flatten()
            .and_then(|r| r.tsft());
        let tsft_mode = *use_tsft.get_or_insert(tsft.is_some());
        let time_ns = match (tsft_mode, tsft) {
            (true, Some(us)) => us.saturating_mul(1000),
            _ => timestamp_ns(iface, p.timestamp),
        };
        z.push(number, time_ns, link::mpdu(&p.data, &framing));
    }
    Ok(z.finish())
}

/// Runs `wisec analyze`.
pub fn run(a: AnalyzeArgs) -> Result<(), Failure> {
    let analysis = analyze_file(&a.capture).map_err(Failure::Runtime)?;
    let name = a.capture.display();
    for (n, why) in &analysis.malformed {
        eprintln!("{name}: packet {n}: {why}; skipped");
    }
    for (why, n) in &analysis.malformed_counts {
        if *n > MALFORMED_LISTED {
            eprintln!(
                "{name}: {} more packets: {why}; skipped",
                n - MALFORMED_LISTED
            );
        }
    }
    if analysis.groups_total == 0 {
        return Err(Failure::Runtime(anyhow!(
            "{name}: no 802.11 frame exchange found ({} packets)",
            analysis.frames
        )));
    }
    if a.json {
        let s = serde_json::to_string_pretty(&analysis)
            .map_err(|e| Failure::Runtime(anyhow!("encoding the analysis: {e}")))?;
        crate::outln!("{s}");
    } else if a.csv {
        let s = crate::tabular::csv(&CSV_COLUMNS, &analysis.rows)
            .map_err(|e| Failure::Runtime(anyhow!("encoding the table: {e}")))?;
        crate::out!("{s}");
    } else {
        crate::out!("{}", analysis.to_text());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_follow_the_resolution() {
        let mut i = Interface::new(127, 0);
        assert_eq!(timestamp_ns(&i, 1_500_000), 1_500_000_000);
        i.tsresol = 9;
        assert_eq!(timestamp_ns(&i, 7), 7);
        i.tsresol = 0x80 | 10;
        assert_eq!(timestamp_ns(&i, 1024), 1_000_000_000);
        i.tsoffset = Some(-5);
        assert_eq!(timestamp_ns(&i, 1024), 0);
    }
}
