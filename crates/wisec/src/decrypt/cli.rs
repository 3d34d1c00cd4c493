//! `wisec encrypt` and `wisec decrypt`: their arguments, the keys they
//! take, and the summaries they print.

use super::io::with_io;
use super::keys::{parse_hex, parse_wep, KeyRole, StaticKeys};
use super::link::FcsMode;
use super::pipeline::{self, DecryptConfig, DecryptSummary, EncryptConfig, EncryptSummary};
use super::tracked::TrackedKeys;
use crate::error::{usage, Failure};
use clap::{Args, ValueEnum};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use wisec_crypto::suite::{BipKey, DataKey, Suite};
use wisec_proto::tracker::Tracker;
use wisec_wire::security::PN_MAX;
use wisec_wire::MacAddr;

pub(crate) const ENCRYPT_EXAMPLES: &str = "\
Examples:
  # CCMP-128 with a 16-byte temporal key, PNs starting at 1
  wisec encrypt plain.pcapng ccmp.pcapng --suite ccmp --key 000102030405060708090a0b0c0d0e0f

  # GCMP-256, PNs from 1000, Key ID 1, gzip output
  wisec encrypt plain.pcap gcmp.pcap.gz --suite gcmp256 --pn 1000 --key-id 1 \\
      --key 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f

  # PMF: also protect deauth/disassoc/robust action frames, BIP for group ones
  wisec encrypt in.pcapng out.pcapng --suite ccmp --key 00112233445566778899aabbccddeeff \\
      --mgmt --igtk 0f0e0d0c0b0a09080706050403020100 --igtk-id 4";

pub(crate) const DECRYPT_EXAMPLES: &str = "\
Examples:
  # WPA2/WPA3-Personal: keys from the handshakes, SSID from the beacons
  wisec decrypt cap.pcapng plain.pcapng --passphrase 'correct horse battery'

  # Only one station, Ethernet output like airdecap-ng, keys for Wireshark
  wisec decrypt cap.pcap eth.pcap --passphrase secret123 --ssid home \\
      --station 02:00:00:00:00:01 --ethernet --keys-out keys.txt

  # A pairwise key of unknown suite (16 bytes: CCMP-128 or GCMP-128 are tried)
  wisec decrypt ccmp.pcapng plain.pcapng --tk 000102030405060708090a0b0c0d0e0f

  # Pairwise and group keys, machine-readable summary
  wisec decrypt cap.pcap out.pcap --tk <32 bytes hex> --gtk <16 bytes hex> --json

  # WEP, as hex or as text
  wisec decrypt wep.pcap out.pcap --wep 0102030405 --wep s:secret123456

  # Verify BIP on group-addressed management frames
  wisec decrypt pmf.pcapng out.pcapng --tk <hex> --igtk <hex>";

#[derive(Debug, Clone, Copy, ValueEnum)]
enum FcsArg {
    /// The FCS is there when the last 4 bytes are the CRC-32 of the frame
    Auto,
    /// Every frame ends with an FCS
    Yes,
    /// No frame has an FCS
    No,
}

impl From<FcsArg> for FcsMode {
    fn from(a: FcsArg) -> FcsMode {
        match a {
            FcsArg::Auto => FcsMode::Auto,
            FcsArg::Yes => FcsMode::Yes,
            FcsArg::No => FcsMode::No,
        }
    }
}

#[derive(Debug, Args)]
struct Common {
    /// FCS of link-type 105 frames when the capture does not say
    /// (pcapng if_fcslen); radiotap frames always say
    #[arg(long, value_enum, default_value = "auto")]
    fcs: FcsArg,
    /// Overwrite OUT if it exists
    #[arg(long)]
    force: bool,
    /// Print the summary as JSON on standard output
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
pub struct EncryptArgs {
    /// Input capture (pcap or pcapng, optionally gzip-compressed)
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// Output capture, in the input's format (gzip-compressed if it ends in .gz)
    #[arg(value_name = "OUT")]
    output: PathBuf,
    /// Cipher suite: wep40, wep104, tkip, ccmp (ccmp128), ccmp256, gcmp (gcmp128), gcmp256
    #[arg(long, value_name = "SUITE")]
    suite: String,
    /// Temporal key in hex (WEP: 10/26 hex digits or s:TEXT)
    #[arg(long, value_name = "HEX")]
    key: String,
    /// First packet number of every transmitter
    #[arg(long, value_name = "N", default_value_t = 1)]
    pn: u64,
    /// Key ID written in the security header
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=3))]
    key_id: u8,
    /// Also protect robust management frames (deauth, disassoc, robust action):
    /// individually addressed ones with the suite (CCMP/GCMP only), group ones
    /// with BIP when --igtk is given
    #[arg(long)]
    mgmt: bool,
    /// IGTK in hex for BIP on group-addressed robust management frames
    #[arg(long, value_name = "HEX", requires = "mgmt")]
    igtk: Option<String>,
    /// Key ID of the IGTK in the MME
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u8).range(4..=5))]
    igtk_id: u8,
    /// BIP suite (default: the one matching --suite, e.g. bip-gmac256 for gcmp256)
    #[arg(long, value_name = "SUITE", requires = "igtk")]
    bip: Option<String>,
    #[command(flatten)]
    common: Common,
}

#[derive(Debug, Args)]
pub struct DecryptArgs {
    /// Input capture (pcap or pcapng, optionally gzip-compressed)
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// Output capture, in the input's format (gzip-compressed if it ends in .gz)
    #[arg(value_name = "OUT")]
    output: PathBuf,
    /// Pairwise temporal key in hex, for individually addressed frames (repeatable)
    #[arg(long, value_name = "HEX")]
    tk: Vec<String>,
    /// Group temporal key in hex, for group-addressed frames (repeatable)
    #[arg(long, value_name = "HEX")]
    gtk: Vec<String>,
    /// WEP key: 10 or 26 hex digits, or s: and 5 or 13 characters (repeatable)
    #[arg(long, value_name = "KEY")]
    wep: Vec<String>,
    /// IGTK in hex, to verify BIP on group-addressed management frames (repeatable)
    #[arg(long, value_name = "HEX")]
    igtk: Vec<String>,
    /// Suite of --tk/--gtk keys; auto tries every suite the key length fits
    #[arg(long, value_name = "auto|SUITE", default_value = "auto")]
    suite: String,
    /// WPA/WPA2/WPA3 passphrase (8 to 63 characters); keys are derived from the
    /// 4-way handshakes in the capture (repeatable)
    #[arg(long, value_name = "P")]
    passphrase: Vec<String>,
    /// SSID for --passphrase (default: from beacons, probe responses and
    /// association requests)
    #[arg(long, value_name = "S")]
    ssid: Option<String>,
    /// PSK (the 32-byte PMK of the PSK AKMs) in hex (repeatable)
    #[arg(long, value_name = "HEX")]
    psk: Vec<String>,
    /// PMK in hex, 32 or 48 bytes (SAE, OWE, 802.1X, Suite B) (repeatable)
    #[arg(long, value_name = "HEX")]
    pmk: Vec<String>,
    /// MSK of an 802.1X authentication in hex, at least 64 bytes (repeatable)
    #[arg(long, value_name = "HEX")]
    msk: Vec<String>,
    /// Only decrypt and write frames of this BSS
    #[arg(long, value_name = "MAC")]
    bssid: Option<String>,
    /// Only decrypt and write frames to or from this station
    #[arg(long, value_name = "MAC")]
    station: Option<String>,
    /// Write decrypted data frames as Ethernet frames (and nothing else), like airdecap-ng
    #[arg(long)]
    ethernet: bool,
    /// Write every derived PTK/GTK/IGTK to FILE in the form of Wireshark's 80211_keys table
    #[arg(long, value_name = "FILE")]
    keys_out: Option<PathBuf>,
    #[command(flatten)]
    common: Common,
}
fn parse_suite(opt: &str, s: &str) -> Result<Suite, Failure> {
    s.parse::<Suite>()
        .map_err(|e| usage(format!("{opt}: '{s}': {e}")))
}

pub(crate) fn encrypt(a: EncryptArgs) -> Result<(), Failure> {
    let suite = parse_suite("--suite", &a.suite)?;
    if suite.is_bip() {
        return Err(usage(format!(
            "--suite: {suite} protects management frames only; use --mgmt --igtk with a data suite"
        )));
    }
    let key = if suite.is_danger() && suite != Suite::Tkip {
        parse_wep(&a.key)
    } else {
        parse_hex(&a.key)
    }
    .map_err(|m| usage(format!("--key: {m}")))?;
    if key.len() != suite.key_len() {
        return Err(usage(format!(
            "--key: a {} key has {} bytes, this one has {}",
            suite.standard_name(),
            suite.key_len(),
            key.len()
        )));
    }
    let key = DataKey::new(suite, &key).map_err(|e| usage(format!("--key: {e}")))?;
    if a.pn > PN_MAX {
        return Err(usage(format!(
            "--pn: {} exceeds the 48-bit maximum {PN_MAX}",
            a.pn
        )));
    }
    if a.mgmt && !suite.protects_mgmt() {
        return Err(usage(format!(
            "--mgmt: management frame protection needs CCMP or GCMP, not {}",
            suite.standard_name()
        )));
    }
    let igtk = match &a.igtk {
        None => None,
        Some(hex) => {
            let bip = match &a.bip {
                Some(b) => {
                    let b = parse_suite("--bip", b)?;
                    if !b.is_bip() {
                        return Err(usage(format!("--bip: {b} is not a BIP suite")));
                    }
                    b
                }
                None => suite.matching_bip(),
            };
            let k = parse_hex(hex).map_err(|m| usage(format!("--igtk: {m}")))?;
            if k.len() != bip.key_len() {
                return Err(usage(format!(
                    "--igtk: a {} key has {} bytes, this one has {}",
                    bip.standard_name(),
                    bip.key_len(),
                    k.len()
                )));
            }
            Some(BipKey::new(bip, &k).map_err(|e| usage(format!("--igtk: {e}")))?)
        }
    };
    let cfg = EncryptConfig {
        key,
        first_pn: a.pn,
        key_id: a.key_id,
        mgmt: a.mgmt,
        igtk,
        igtk_id: a.igtk_id,
        fcs: a.common.fcs.into(),
    };
    let summary = with_io(&a.input, &a.output, a.common.force, |r, w, tick| {
        pipeline::encrypt(r, w, &cfg, tick)
    })?;
    print_encrypt(&summary, a.common.json);
    Ok(())
}

pub(crate) fn decrypt(a: DecryptArgs) -> Result<(), Failure> {
    let suite = if a.suite.eq_ignore_ascii_case("auto") {
        None
    } else {
        let s = parse_suite("--suite", &a.suite)?;
        if s.is_bip() {
            return Err(usage(format!(
                "--suite: {s} is an integrity suite; IGTKs are matched to BIP suites by length"
            )));
        }
        Some(s)
    };
    let mut keys = StaticKeys::new();
    for (opt, list, role) in [
        ("--tk", &a.tk, KeyRole::Pairwise),
        ("--gtk", &a.gtk, KeyRole::Group),
    ] {
        for k in list {
            let bytes = parse_hex(k).map_err(|m| usage(format!("{opt}: {m}")))?;
            keys.add_temporal(
                role,
                suite.filter(|s| !s.is_danger() || *s == Suite::Tkip),
                &bytes,
            )
            .map_err(|e| usage(format!("{opt}: {e}")))?;
        }
    }
    for k in &a.wep {
        let bytes = parse_wep(k).map_err(|m| usage(format!("--wep: {m}")))?;
        keys.add_wep(&bytes)
            .map_err(|e| usage(format!("--wep: {e}")))?;
    }
    for k in &a.igtk {
        let bytes = parse_hex(k).map_err(|m| usage(format!("--igtk: {m}")))?;
        keys.add_igtk(None, &bytes)
            .map_err(|e| usage(format!("--igtk: {e}")))?;
    }
    let mut tracker = Tracker::new();
    for p in &a.passphrase {
        tracker
            .add_passphrase(p.as_bytes(), a.ssid.as_deref().map(str::as_bytes))
            .map_err(|e| usage(format!("--passphrase: {e}")))?;
    }
    for (opt, list) in [("--psk", &a.psk), ("--pmk", &a.pmk)] {
        for k in list {
            let bytes = parse_hex(k).map_err(|m| usage(format!("{opt}: {m}")))?;
            let ok = if opt == "--psk" {
                bytes.len() == 32
            } else {
                matches!(bytes.len(), 32 | 48 | 64)
            };
            if !ok {
                return Err(usage(format!(
                    "{opt}: a {} has {}, this one has {} bytes",
                    &opt[2..],
                    if opt == "--psk" {
                        "32 bytes"
                    } else {
                        "32, 48 or 64 bytes"
                    },
                    bytes.len()
                )));
            }
            tracker
                .add_pmk(&bytes)
                .map_err(|e| usage(format!("{opt}: {e}")))?;
        }
    }
    for k in &a.msk {
        let bytes = parse_hex(k).map_err(|m| usage(format!("--msk: {m}")))?;
        tracker.add_msk(&bytes).map_err(|_| {
            usage(format!(
                "--msk: an MSK has at least 64 bytes, this one has {}",
                bytes.len()
            ))
        })?;
    }
    if a.ssid.is_some() && a.passphrase.is_empty() {
        return Err(usage("--ssid goes with --passphrase"));
    }
    if keys.is_empty() && tracker.is_empty() {
        return Err(usage(
            "no key given: use --passphrase, --psk, --pmk, --msk, --tk, --gtk, --wep or --igtk",
        ));
    }
    let mac = |opt: &str, v: &Option<String>| -> Result<Option<MacAddr>, Failure> {
        v.as_deref()
            .map(|m| {
                parse_mac(m).ok_or_else(|| usage(format!("{opt}: '{m}' is not a MAC address")))
            })
            .transpose()
    };
    let cfg = DecryptConfig {
        suite,
        fcs: a.common.fcs.into(),
        bssid: mac("--bssid", &a.bssid)?,
        station: mac("--station", &a.station)?,
        ethernet: a.ethernet,
    };
    let mut store = TrackedKeys::new(keys, tracker, a.keys_out.is_some());
    let mut summary = with_io(&a.input, &a.output, a.common.force, |r, w, tick| {
        pipeline::decrypt(r, w, &mut store, cfg, tick)
    })?;
    merge_handshakes(&mut summary, &store);
    if let (Some(path), Some(text)) = (&a.keys_out, store.keys_out()) {
        write_private(path, text.as_bytes())
            .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", path.display()))?;
    }
    print_decrypt(&summary, a.common.json);
    Ok(())
}

/// Writes a file readable by its owner only (it holds keys).
fn write_private(path: &Path, data: &[u8]) -> io::Result<()> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o.open(path)?.write_all(data)
}

/// Parses `aa:bb:cc:dd:ee:ff` (or with dashes).
pub fn parse_mac(s: &str) -> Option<MacAddr> {
    let parts: Vec<&str> = s.split([':', '-']).collect();
    if parts.len() != 6 {
        return None;
    }
    let mut m = [0u8; 6];
    for (o, p) in m.iter_mut().zip(parts) {
        if p.len() != 2 {
            return None;
        }
        *o = u8::from_str_radix(p, 16).ok()?;
    }
    Some(MacAddr(m))
}

/// Adds the tracker's handshake counters to the per-link summary.
fn merge_handshakes(s: &mut DecryptSummary, store: &TrackedKeys) {
    for (aa, spa, st, rejected) in store.link_reports() {
        let l = s.links.entry(format!("{aa} {spa}")).or_default();
        l.handshakes_seen = st.handshakes_seen;
        l.handshakes_complete = st.handshakes_complete;
        l.ptks = st.ptks;
        l.msg4 = st.msg4;
        l.group_rekeys = st.group_rekeys;
        l.ft_roams = st.ft_roams;
        l.retransmissions = st.retransmissions;
        l.rejected = rejected;
    }
}
fn print_encrypt(s: &EncryptSummary, json: bool) {
    if json {
        println!("{}", serde_json::to_string_pretty(s).unwrap_or_default());
        return;
    }
    println!("frames read              {:>8}", s.frames);
    println!(
        "data frames protected    {:>8}  ({})",
        s.data_protected, s.suite
    );
    println!("management, unicast      {:>8}", s.mgmt_protected);
    println!("management, BIP (group)  {:>8}", s.mgmt_bip);
    println!("passed through unchanged {:>8}", s.passed_through);
    if s.unparsable > 0 {
        println!("  of which unparsable    {:>8}", s.unparsable);
    }
    if s.not_protectable > 0 {
        println!("  the suite cannot carry {:>8}", s.not_protectable);
    }
}

fn print_decrypt(s: &DecryptSummary, json: bool) {
    if json {
        println!("{}", serde_json::to_string_pretty(s).unwrap_or_default());
        return;
    }
    println!(
        "frames read {}, protected {}, decrypted {}, written unchanged {}",
        s.frames, s.protected, s.decrypted, s.unchanged
    );
    if s.unparsable > 0 {
        println!("unparsable frames {}", s.unparsable);
    }
    if s.filtered_out > 0 {
        println!("outside --bssid/--station {}", s.filtered_out);
    }
    if s.not_written > 0 {
        println!("left out of the Ethernet output {}", s.not_written);
    }
    print_links(s);
    if s.suites.is_empty() {
        return;
    }
    println!(
        "{:<12} {:>8} {:>10} {:>10} {:>8} {:>8}",
        "suite", "seen", "decrypted", "integrity", "replays", "no key"
    );
    for (name, st) in &s.suites {
        println!(
            "{:<12} {:>8} {:>10} {:>10} {:>8} {:>8}",
            name, st.seen, st.decrypted, st.integrity_failures, st.replays, st.no_key
        );
    }
}

fn print_links(s: &DecryptSummary) {
    for (name, l) in &s.links {
        println!("{name}");
        if l.handshakes_seen + l.ptks + l.group_rekeys + l.ft_roams > 0 || !l.rejected.is_empty() {
            println!(
                "  handshakes seen {}, complete {}, PTKs {}, message 4 {}, group rekeys {}, FT roams {}, retransmissions {}",
                l.handshakes_seen,
                l.handshakes_complete,
                l.ptks,
                l.msg4,
                l.group_rekeys,
                l.ft_roams,
                l.retransmissions
            );
        }
        for (r, n) in &l.rejected {
            println!("  rejected {n:>8}  {r}");
        }
        for (k, n) in &l.decrypted {
            println!("  decrypted {n:>7}  {k}");
        }
        if l.integrity_failures > 0 {
            println!("  MIC failures {:>4}", l.integrity_failures);
        }
        if l.replays > 0 {
            println!("  replays {:>8}", l.replays);
        }
        for (r, n) in &l.left_encrypted {
            println!("  left encrypted {n:>4}  {r}");
        }
    }
}
