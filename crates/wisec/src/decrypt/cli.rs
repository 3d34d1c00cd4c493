//! `wisec encrypt` and `wisec decrypt`: their arguments, the keys they
//! take, and the summaries they print.

use super::io::{private_file, with_io, Files};
use super::keys::{parse_hex, parse_wep, KeyRole, StaticKeys};
use super::link::FcsMode;
use super::pipeline::{self, DecryptConfig, DecryptSummary, EncryptConfig, EncryptSummary};
use super::tracked::TrackedKeys;
use crate::error::{report, usage, Failure, EXIT_DAMAGED, EXIT_STRICT};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
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
  wisec decrypt pmf.pcapng out.pcapng --tk <hex> --igtk <hex>

  # From a pipe to a pipe (the summary goes to standard error)
  tcpdump -i mon0 -w - | wisec decrypt - - --passphrase secret123 | tshark -r -

  # For scripts: one line, status 4 when nothing decrypted or a MIC failed
  wisec decrypt cap.pcap out.pcapng --passphrase secret123 -q --strict

Exit status: 0 done, 1 input or runtime error, 2 usage error, 3 the input is
damaged (OUT holds everything before the damage), 4 --strict failed.";

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
    /// Overwrite OUT (and --keys-out) if it exists
    #[arg(long)]
    force: bool,
    /// Print the summary as JSON on standard output (standard error when
    /// OUT is -)
    #[arg(long)]
    json: bool,
    /// Print a one-line summary
    #[arg(short, long, conflicts_with = "json")]
    quiet: bool,
}

#[derive(Debug, Args)]
pub struct EncryptArgs {
    /// Input capture (pcap or pcapng, optionally gzip-compressed); - reads
    /// standard input
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// Output capture: pcap if it ends in .pcap (or .cap), pcapng if it ends
    /// in .pcapng, else the input's format; gzip-compressed if it ends in
    /// .gz; - writes standard output (the summary then goes to standard
    /// error)
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
    /// Input capture (pcap or pcapng, optionally gzip-compressed); - reads
    /// standard input
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// Output capture: pcap if it ends in .pcap (or .cap), pcapng if it ends
    /// in .pcapng, else the input's format; gzip-compressed if it ends in
    /// .gz; - writes standard output (the summary then goes to standard
    /// error)
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
    /// PMK in hex, 32, 48 or 64 bytes (SAE, OWE, 802.1X, Suite B) (repeatable)
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
    /// Write every derived PTK/GTK/IGTK to FILE in the form of Wireshark's
    /// 80211_keys table (created readable by its owner only; never IN or
    /// OUT; an existing FILE only with --force)
    #[arg(long, value_name = "FILE")]
    keys_out: Option<PathBuf>,
    /// Exit with status 4 when nothing was decrypted or any frame failed
    /// its integrity check (for scripts)
    #[arg(long)]
    strict: bool,
    /// Threads unprotecting frames in parallel, 1 to 1024 (default: one per
    /// core); the output is the same for every N
    #[arg(long, value_name = "N",
          value_parser = |s: &str| crate::cli::num::int(s, 1usize, 1024))]
    threads: Option<usize>,
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
    let files = Files {
        input: &a.input,
        output: &a.output,
        others: Vec::new(),
        force: a.common.force,
    };
    files.check()?;
    let written = with_io(&files, |r, w, tick| pipeline::encrypt(r, w, &cfg, tick))?;
    let s = &written.value;
    if s.data_protected + s.mgmt_protected + s.mgmt_bip == 0 {
        // Nothing to show for it: say why, and leave no OUT behind.
        let why = if s.unparsable > 0 {
            format!(
                "{} of {} frames could not be parsed (bad FCS? see --fcs)",
                s.unparsable, s.frames
            )
        } else if s.not_protectable > 0 {
            format!("the suite cannot carry {} frames", s.not_protectable)
        } else {
            format!(
                "none of the {} frames is an unprotected data frame with a body{}",
                s.frames,
                if a.mgmt {
                    " or a robust management frame"
                } else {
                    ""
                }
            )
        };
        return Err(Failure::Runtime(anyhow::anyhow!(
            "nothing was protected: {why}; {} not written",
            a.output.display()
        )));
    }
    let stderr = files.out_is_stdout();
    let damaged = s.damaged.clone();
    let summary = written.commit()?;
    print_encrypt(&summary, &a.common, stderr);
    damage_status(damaged.as_deref())
}

/// Warns about a damaged input; its exit status.
fn damage_status(damaged: Option<&str>) -> Result<(), Failure> {
    match damaged {
        Some(d) => {
            eprintln!("wisec: warning: {d}; the capture was processed up to there");
            Err(Failure::Status(EXIT_DAMAGED))
        }
        None => Ok(()),
    }
}

/// The keys, credentials and settings of `wisec decrypt`'s arguments,
/// checked as the command checks them (usage errors carry the messages it
/// prints): the key store — typed keys beside the handshake tracker with
/// its credentials, named for the summary — and the pipeline's settings.
/// IN, OUT and `--keys-out` are not looked at here.
pub fn decrypt_setup(a: &DecryptArgs) -> Result<(TrackedKeys, DecryptConfig), Failure> {
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
    let wep_suite = suite.filter(|s| s.is_danger() && *s != Suite::Tkip);
    if let (Some(w), Some((opt, k))) = (
        wep_suite,
        a.tk.first()
            .map(|k| ("--tk", k))
            .or(a.gtk.first().map(|k| ("--gtk", k))),
    ) {
        let n = parse_hex(k).map(|b| b.len()).unwrap_or(0);
        return Err(usage(format!(
            "{opt}: --suite {w} takes WEP keys with --wep ({} hex digits or s: and {} characters), \
not a {n}-byte {opt} key",
            2 * w.key_len(),
            w.key_len()
        )));
    }
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
        if let Some(w) = wep_suite.filter(|w| w.key_len() != bytes.len()) {
            return Err(usage(format!(
                "--wep: a {} key has {} bytes, this one has {} (see --suite)",
                w.standard_name(),
                w.key_len(),
                bytes.len()
            )));
        }
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
                    "{opt}: a {} has {} bytes, this one has {}",
                    opt[2..].to_ascii_uppercase(),
                    if opt == "--psk" { "32" } else { "32, 48 or 64" },
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
        threads: a.threads.and_then(std::num::NonZeroUsize::new),
    };
    let mut store = TrackedKeys::new(keys, tracker, a.keys_out.is_some());
    // The tracker's credentials in the order they were added above.
    let mut names = Vec::new();
    for (opt, n) in [
        ("--passphrase", a.passphrase.len()),
        ("--psk", a.psk.len()),
        ("--pmk", a.pmk.len()),
        ("--msk", a.msk.len()),
    ] {
        names.extend((1..=n).map(|i| format!("{opt} #{i}")));
    }
    store.name_credentials(names);
    Ok((store, cfg))
}

pub(crate) fn decrypt(a: DecryptArgs) -> Result<(), Failure> {
    let (mut store, cfg) = decrypt_setup(&a)?;
    let mut files = Files {
        input: &a.input,
        output: &a.output,
        others: Vec::new(),
        force: a.common.force,
    };
    if let Some(k) = &a.keys_out {
        if crate::outfile::is_stdio(k) {
            return Err(usage(
                "--keys-out: give a file (keys are never written to standard output)",
            ));
        }
        files.others.push(("--keys-out", k));
    }
    files.check()?;
    let written = with_io(&files, |r, w, tick| {
        pipeline::decrypt(r, w, &mut store, cfg, tick)
    })?;
    // The keys are written beside OUT and put in place after it: an error
    // before leaves neither.
    // A capture none of whose packets holds a readable 802.11 frame (a
    // capture of another link layer mislabelled, or empty records) is an
    // input error, not a success: OUT is not written.
    let s = &written.value;
    if s.frames > 0 && s.unparsable + s.other_link_types == s.frames && s.other_link_types == 0 {
        return Err(Failure::Runtime(anyhow::anyhow!(
            "{}: none of its {} packets holds an 802.11 frame wisec can read{}; {} not written",
            a.input.display(),
            s.frames,
            s.damaged
                .as_deref()
                .map(|d| format!(" (and it is damaged: {d})"))
                .unwrap_or_default(),
            a.output.display()
        )));
    }
    let keys_file = match (&a.keys_out, store.keys_out()) {
        (Some(path), Some(text)) => Some(private_file(path, a.common.force, text.as_bytes())?),
        _ => None,
    };
    let mut summary = written.commit()?;
    if let Some(k) = keys_file {
        k.commit()?;
    }
    merge_handshakes(&mut summary, &store);
    let stderr = files.out_is_stdout();
    print_decrypt(&summary, &a.common, stderr);
    let unverified: u64 = summary.suites.values().map(|s| s.michael_unverified).sum();
    if unverified > 0 {
        eprintln!(
            "wisec: warning: {unverified} TKIP frames were decrypted from a 16-byte TK: their ICV \
verified but their Michael MIC could not be checked (give the 32-byte TKIP key to verify it); \
their integrity is not established"
        );
    }
    damage_status(summary.damaged.as_deref())?;
    if a.strict {
        let failures: u64 = summary.suites.values().map(|s| s.integrity_failures).sum();
        if summary.decrypted == 0 || failures > 0 {
            eprintln!(
                "wisec: --strict: {}",
                if summary.decrypted == 0 {
                    "nothing was decrypted".to_string()
                } else {
                    format!("{failures} frames failed their integrity check")
                }
            );
            return Err(Failure::Status(EXIT_STRICT));
        }
    }
    Ok(())
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
pub fn merge_handshakes(s: &mut DecryptSummary, store: &TrackedKeys) {
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
        l.credentials = store.credentials_of(aa, spa);
    }
}
fn print_encrypt(s: &EncryptSummary, c: &Common, stderr: bool) {
    use std::fmt::Write as _;
    let mut t = String::new();
    if c.json {
        t = serde_json::to_string_pretty(s).unwrap_or_default() + "\n";
    } else if c.quiet {
        let _ = writeln!(
            t,
            "frames {}, protected {} ({}), passed through {}",
            s.frames,
            s.data_protected + s.mgmt_protected + s.mgmt_bip,
            s.suite,
            s.passed_through
        );
    } else {
        let _ = writeln!(t, "frames read              {:>8}", s.frames);
        let _ = writeln!(
            t,
            "data frames protected    {:>8}  ({})",
            s.data_protected, s.suite
        );
        let _ = writeln!(t, "management, unicast      {:>8}", s.mgmt_protected);
        let _ = writeln!(t, "management, BIP (group)  {:>8}", s.mgmt_bip);
        let _ = writeln!(t, "passed through unchanged {:>8}", s.passed_through);
        if s.unparsable > 0 {
            let _ = writeln!(t, "  of which unparsable    {:>8}", s.unparsable);
        }
        if s.not_protectable > 0 {
            let _ = writeln!(t, "  the suite cannot carry {:>8}", s.not_protectable);
        }
    }
    report(&t, stderr);
}

fn print_decrypt(s: &DecryptSummary, c: &Common, stderr: bool) {
    use std::fmt::Write as _;
    let mut t = String::new();
    if c.json {
        t = serde_json::to_string_pretty(s).unwrap_or_default() + "\n";
        report(&t, stderr);
        return;
    }
    let _ = write!(
        t,
        "frames read {}, protected {}, decrypted {}, written unchanged {}",
        s.frames, s.protected, s.decrypted, s.written_unchanged
    );
    let left_out = s.frames - s.written;
    if left_out > 0 {
        let _ = write!(t, ", left out {left_out}");
    }
    if c.quiet {
        let failures: u64 = s.suites.values().map(|x| x.integrity_failures).sum();
        let _ = writeln!(t, ", integrity failures {failures}");
        report(&t, stderr);
        return;
    }
    t.push('\n');
    if s.unparsable > 0 {
        let _ = writeln!(t, "unparsable frames {}", s.unparsable);
    }
    if s.other_link_types > 0 {
        let _ = writeln!(
            t,
            "copied from non-802.11 interfaces {}",
            s.other_link_types
        );
    }
    if s.filtered_out > 0 {
        let _ = writeln!(t, "left out: outside --bssid/--station {}", s.filtered_out);
    }
    let eth_left = s.frames - s.written - s.filtered_out;
    if s.ethernet && eth_left > 0 {
        let _ = writeln!(t, "left out of the Ethernet output {eth_left}");
    }
    if s.retransmissions + s.duplicates > 0 {
        let _ = writeln!(
            t,
            "of the decrypted: MAC retransmissions {}, capture duplicates {}",
            s.retransmissions, s.duplicates
        );
    }
    print_links(&mut t, s);
    if !s.suites.is_empty() {
        let _ = writeln!(
            t,
            "{:<12} {:>8} {:>10} {:>10} {:>8} {:>8}",
            "suite", "seen", "decrypted", "integrity", "replays", "no key"
        );
        for (name, st) in &s.suites {
            let _ = writeln!(
                t,
                "{:<12} {:>8} {:>10} {:>10} {:>8} {:>8}",
                name, st.seen, st.decrypted, st.integrity_failures, st.replays, st.no_key
            );
        }
    }
    report(&t, stderr);
}

fn print_links(t: &mut String, s: &DecryptSummary) {
    use std::fmt::Write as _;
    for (name, l) in &s.links {
        let _ = writeln!(t, "{name}");
        if l.handshakes_seen + l.ptks + l.group_rekeys + l.ft_roams > 0 || !l.rejected.is_empty() {
            let _ = writeln!(
                t,
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
        for c in &l.credentials {
            let _ = writeln!(t, "  credential matched: {c}");
        }
        for (r, n) in &l.rejected {
            let _ = writeln!(t, "  rejected {n:>8}  {r}");
        }
        for (k, n) in &l.decrypted {
            let _ = writeln!(t, "  decrypted {n:>7}  {k}");
        }
        if l.integrity_failures > 0 {
            let _ = writeln!(t, "  MIC failures {:>4}", l.integrity_failures);
        }
        if l.replays > 0 {
            let _ = writeln!(t, "  replays {:>8}", l.replays);
        }
        if l.frame_retransmissions + l.duplicates > 0 {
            let _ = writeln!(
                t,
                "  MAC retransmissions {}, capture duplicates {}",
                l.frame_retransmissions, l.duplicates
            );
        }
        for (r, n) in &l.left_encrypted {
            let _ = writeln!(t, "  left encrypted {n:>4}  {r}");
        }
    }
}
