//! Command-line interface.

use crate::capture::{CaptureReader, CaptureWriter, Format, Progress};
use crate::keys::{parse_hex, parse_wep, KeyRole, StaticKeys};
use crate::link::FcsMode;
use crate::pipeline::{self, DecryptConfig, DecryptSummary, EncryptConfig, EncryptSummary};
use crate::tracked::TrackedKeys;
use clap::{Args, Parser, Subcommand, ValueEnum};
use flate2::write::GzEncoder;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use wisec_crypto::suite::{BipKey, DataKey, Suite};
use wisec_proto::tracker::Tracker;
use wisec_wire::security::PN_MAX;
use wisec_wire::MacAddr;

const ENCRYPT_EXAMPLES: &str = "\
Examples:
  # CCMP-128 with a 16-byte temporal key, PNs starting at 1
  wisec encrypt plain.pcapng ccmp.pcapng --suite ccmp --key 000102030405060708090a0b0c0d0e0f

  # GCMP-256, PNs from 1000, Key ID 1, gzip output
  wisec encrypt plain.pcap gcmp.pcap.gz --suite gcmp256 --pn 1000 --key-id 1 \\
      --key 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f

  # PMF: also protect deauth/disassoc/robust action frames, BIP for group ones
  wisec encrypt in.pcapng out.pcapng --suite ccmp --key 00112233445566778899aabbccddeeff \\
      --mgmt --igtk 0f0e0d0c0b0a09080706050403020100 --igtk-id 4";

const DECRYPT_EXAMPLES: &str = "\
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

const ABOUT: &str = "IEEE 802.11 link security: protect and unprotect the frames of a capture";

/// The `wisec` command line.
#[derive(Debug, Parser)]
#[command(
    name = "wisec",
    version,
    about = ABOUT,
    long_about = "wisec reads and writes pcap and pcapng captures (gzip-compressed or not) of \
IEEE 802.11 frames, with or without radiotap headers and FCS, and protects or unprotects \
their frames with WEP, TKIP, CCMP, GCMP and BIP.\n\n\
Exit status: 0 on success, 1 when the input or the environment fails, 2 on a usage error.",
    after_help = "Run 'wisec encrypt --help' or 'wisec decrypt --help' for examples."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Protect the unprotected frames of a capture with one key
    #[command(after_help = ENCRYPT_EXAMPLES)]
    Encrypt(EncryptArgs),
    /// Unprotect the protected frames of a capture with the keys given
    #[command(after_help = DECRYPT_EXAMPLES)]
    Decrypt(Box<DecryptArgs>),
    /// Write a synthetic capture of a whole protected session
    #[command(after_help = crate::synth::cli::EXAMPLES)]
    Synth(crate::synth::cli::SynthArgs),
    /// Run the lab's simulated experiments
    Lab(crate::lab::LabArgs),
    /// Break a capture down into exchange groups and their delays (seed
    /// 000's Table 3)
    Analyze(crate::analyze::AnalyzeArgs),
    /// Attacks on management frames against no protection, 802.11w and
    /// DiscoSec, on a virtual channel
    Attack {
        #[command(subcommand)]
        what: crate::attack::cli::AttackCommand,
    },
    /// Benchmarks: `crypto` times every suite beside its peers, `decrypt`
    /// decrypts a large capture beside airdecap-ng and tshark, `discosec`
    /// times DiscoSec beside OpenSSL
    Bench {
        #[command(subcommand)]
        what: crate::bench::BenchCommand,
    },
    /// Seed 000's bare machine: wisec's CCM in an image with no operating
    /// system under QEMU, and the CCM-UDP exchange with it
    Bare(crate::bare::BareArgs),
}

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
struct EncryptArgs {
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
struct DecryptArgs {
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

/// Why the command failed, and so its exit status.
#[derive(Debug)]
pub enum Failure {
    /// The command line is wrong: exit status 2.
    Usage(String),
    /// The input, output or environment failed: exit status 1.
    Runtime(anyhow::Error),
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        Failure::Runtime(e)
    }
}

fn usage(msg: impl Into<String>) -> Failure {
    Failure::Usage(msg.into())
}

/// Runs the command line, returning the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion)
                || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            {
                let code = if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    2
                } else {
                    0
                };
                let _ = e.print();
                return code;
            }
            // clap's message, up to its usage section, on one line.
            let text = e.render().to_string();
            let words: Vec<&str> = text
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            let line = words.join(" ");
            let line = line.strip_prefix("error: ").unwrap_or(&line);
            eprintln!("wisec: error: {line} (see wisec --help)");
            return 2;
        }
    };
    match run(cli) {
        Ok(()) => 0,
        Err(Failure::Usage(m)) => {
            eprintln!("wisec: error: {m}");
            2
        }
        Err(Failure::Runtime(e)) => {
            eprintln!("wisec: error: {e:#}");
            1
        }
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Encrypt(a) => encrypt(a),
        Command::Decrypt(a) => decrypt(*a),
        Command::Synth(a) => crate::synth::cli::run(a).map_err(|e| match e {
            crate::synth::cli::Error::Usage(m) => usage(m),
            crate::synth::cli::Error::Runtime(e) => Failure::Runtime(e),
        }),
        Command::Lab(a) => crate::lab::run(a),
        Command::Analyze(a) => crate::analyze::run(a),
        Command::Attack { what } => crate::attack::cli::main(what).map_err(|e| match e {
            crate::attack::cli::Error::Usage(m) => usage(m),
            crate::attack::cli::Error::Runtime(e) => Failure::Runtime(e),
        }),
        Command::Bench { what } => crate::bench::run(what),
        Command::Bare(a) => crate::bare::run(a),
    }
}

fn parse_suite(opt: &str, s: &str) -> Result<Suite, Failure> {
    s.parse::<Suite>()
        .map_err(|e| usage(format!("{opt}: '{s}': {e}")))
}

fn encrypt(a: EncryptArgs) -> Result<(), Failure> {
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

fn decrypt(a: DecryptArgs) -> Result<(), Failure> {
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

/// The output stream: a temporary file beside OUT, gzip-compressed when
/// OUT ends in `.gz`.
enum Sink {
    Plain(BufWriter<File>),
    Gzip(GzEncoder<BufWriter<File>>),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Plain(w) => w.write(buf),
            Sink::Gzip(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Plain(w) => w.flush(),
            Sink::Gzip(w) => w.flush(),
        }
    }
}

impl Sink {
    fn finish(self) -> io::Result<File> {
        let buffered = match self {
            Sink::Plain(w) => w,
            Sink::Gzip(w) => w.finish()?,
        };
        buffered.into_inner().map_err(|e| e.into_error())
    }
}

#[cfg(unix)]
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Opens IN, runs `f` writing into a temporary file beside OUT, and
/// renames it to OUT only when everything succeeded. On any error the
/// temporary file is removed and OUT is untouched.
fn with_io<T>(
    input: &Path,
    output: &Path,
    force: bool,
    f: impl FnOnce(&mut CaptureReader, &mut CaptureWriter<Sink>, &mut dyn FnMut()) -> anyhow::Result<T>,
) -> Result<T, Failure> {
    if same_file(input, output) {
        return Err(usage(format!(
            "OUT '{}' is the input file; write to another file",
            output.display()
        )));
    }
    let exists = std::fs::symlink_metadata(output).is_ok();
    if exists && !force {
        return Err(Failure::Runtime(anyhow::anyhow!(
            "{}: already exists (use --force to overwrite it)",
            output.display()
        )));
    }
    let mut reader = CaptureReader::open(input).map_err(anyhow::Error::from)?;
    let dir = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let tmp = tempfile::Builder::new()
        .prefix(".wisec-")
        .suffix(".part")
        .tempfile_in(&dir)
        .map_err(|e| anyhow::anyhow!("{}: cannot create a file there: {e}", dir.display()))?;
    let file = tmp
        .as_file()
        .try_clone()
        .map_err(|e| anyhow::anyhow!("{}: {e}", tmp.path().display()))?;
    let buffered = BufWriter::with_capacity(1 << 16, file);
    let gz = output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    let sink = if gz {
        Sink::Gzip(GzEncoder::new(buffered, flate2::Compression::default()))
    } else {
        Sink::Plain(buffered)
    };
    let format: Format = reader.format();
    let mut writer = CaptureWriter::new(sink, format);
    let mut meter = Meter::new(reader.progress(), input);
    let result = f(&mut reader, &mut writer, &mut || meter.tick());
    meter.clear();
    let value = result?;
    let write_err = |e: io::Error| anyhow::anyhow!("{}: cannot write: {e}", output.display());
    let sink = writer.into_inner().map_err(write_err)?;
    let file = sink.finish().map_err(write_err)?;
    file.sync_all().map_err(write_err)?;
    drop(file);
    let persisted = if force {
        tmp.persist(output).map(|_| ())
    } else {
        tmp.persist_noclobber(output).map(|_| ())
    };
    persisted.map_err(|e| anyhow::anyhow!("{}: cannot create: {}", output.display(), e.error))?;
    Ok(value)
}

/// A progress line on stderr for large inputs when stderr is a terminal.
struct Meter {
    progress: Progress,
    enabled: bool,
    calls: u32,
    last: Instant,
    shown: bool,
    name: String,
}

const PROGRESS_MIN: u64 = 4 << 20;

impl Meter {
    fn new(progress: Progress, input: &Path) -> Meter {
        let enabled =
            io::stderr().is_terminal() && progress.total().is_some_and(|t| t > PROGRESS_MIN);
        Meter {
            progress,
            enabled,
            calls: 0,
            last: Instant::now(),
            shown: false,
            name: input.display().to_string(),
        }
    }

    fn tick(&mut self) {
        if !self.enabled {
            return;
        }
        self.calls = self.calls.wrapping_add(1);
        if self.calls % 256 != 0 || self.last.elapsed() < Duration::from_millis(200) {
            return;
        }
        self.last = Instant::now();
        let total = self.progress.total().unwrap_or(1).max(1);
        let done = self.progress.bytes_read().min(total);
        eprint!(
            "\rwisec: {}: {:3}% ({:.1} of {:.1} MB)",
            self.name,
            done * 100 / total,
            done as f64 / 1e6,
            total as f64 / 1e6
        );
        self.shown = true;
    }

    fn clear(&mut self) {
        if self.shown {
            eprint!("\r\x1b[K");
            self.shown = false;
        }
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
