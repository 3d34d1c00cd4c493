//! Scenarios: what a lab run does, as a TOML file.
//!
//! A scenario names the experiment that runs it and gives the run's seed
//! and trial count, the experiment's own parameters (`[params]`), and the
//! network it runs on: PHY, MAC, security suite and AKM, device profiles,
//! nodes, topology (hidden pairs, per-link loss, wired links), traffic and
//! attacks. Every table rejects unknown keys and lists the valid ones;
//! every error names the file, the line and column, and the field:
//!
//! ```text
//! scenarios/x.toml:7:1: phy.rat: unknown field `rat`, expected one of `standard`, ...
//! ```
//!
//! Built-in experiments are scenarios compiled into the binary
//! ([`BUILTIN`]). `--set key=value` overrides any field after the file
//! was read: a dotted path (`phy.rate`, `params.stations`,
//! `nodes.1.profile`) and a TOML value (`[1, 5, 10]`, `2.5`, `true`), or a
//! bare word taken as a string (`--set phy.standard=g`).

use crate::experiment::{Experiment, RunOptions};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use toml::Spanned;

/// A scenario as written in its file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Short name, used in file names of the output.
    pub name: String,
    /// What the scenario reproduces.
    #[serde(default)]
    pub description: String,
    /// The experiment that runs it (see `wisec lab list`).
    pub experiment: Spanned<String>,
    /// The seed every trial's seed derives from.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Trials per point; absent for the experiment's default.
    #[serde(default)]
    pub trials: Option<u32>,
    /// A reduced version (shorter, fewer points) for smoke tests.
    #[serde(default)]
    pub quick: bool,
    /// Run live: real programs in network namespaces over the medium in
    /// real time (root only; not every experiment can).
    #[serde(default)]
    pub live: bool,
    /// The experiment's own parameters, by name.
    #[serde(default)]
    pub params: BTreeMap<String, Spanned<toml::Value>>,
    /// The PHY of the channel.
    #[serde(default)]
    pub phy: Option<Spanned<PhySection>>,
    /// MAC parameters.
    #[serde(default)]
    pub mac: Option<Spanned<MacSection>>,
    /// Security suite and AKM.
    #[serde(default)]
    pub security: Option<Spanned<SecuritySection>>,
    /// User-defined device profiles, beside the built-in ones.
    #[serde(default)]
    pub profiles: Vec<Spanned<ProfileDef>>,
    /// Nodes.
    #[serde(default)]
    pub nodes: Vec<Spanned<NodeDef>>,
    /// Who hears whom, loss, wired links.
    #[serde(default)]
    pub topology: Option<Spanned<TopologySection>>,
    /// Traffic flows.
    #[serde(default)]
    pub traffic: Vec<Spanned<TrafficDef>>,
    /// Attacks (validated now; carried out by the attack experiments).
    #[serde(default)]
    pub attacks: Vec<Spanned<AttackDef>>,
    /// What goes into the output directory.
    #[serde(default)]
    pub output: OutputSection,
    /// Where it was read from (file name and text), for locating errors
    /// the experiment finds in its parameters.
    #[serde(skip)]
    pub source: Option<(String, String)>,
}

fn default_seed() -> u64 {
    1
}

/// The PHY families a scenario can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PhyName {
    /// 802.11b.
    B,
    /// 802.11g.
    G,
    /// 802.11a.
    A,
}

/// ERP protection for 802.11g with 802.11b stations present.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProtectionName {
    /// None.
    None,
    /// CTS-to-self.
    CtsToSelf,
    /// RTS/CTS.
    RtsCts,
}

/// `[phy]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhySection {
    /// b, g or a.
    pub standard: PhyName,
    /// Data rate in Mb/s; absent for the PHY's highest.
    #[serde(default)]
    pub rate: Option<f64>,
    /// Short preamble for DSSS/CCK rates (802.11b).
    #[serde(default)]
    pub short_preamble: Option<bool>,
    /// The BSSBasicRateSet in Mb/s (e.g. `[1]`, `[1, 2]`,
    /// `[1, 2, 5.5, 11]`, `[6, 12, 24]`); absent for the PHY's default.
    /// It decides the rate of Ack, CTS and RTS frames (10.6.6).
    #[serde(default)]
    pub basic_rates: Option<Vec<f64>>,
    /// 802.11g: 802.11b stations are present.
    #[serde(default)]
    pub non_erp: bool,
    /// 802.11g with non-ERP stations: how OFDM frames are protected.
    #[serde(default)]
    pub protection: Option<ProtectionName>,
    /// Centre frequency in MHz for the captures.
    #[serde(default)]
    pub freq_mhz: Option<u16>,
}

/// `[mac]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MacSection {
    /// dot11RTSThreshold in octets; absent: no RTS/CTS.
    #[serde(default)]
    pub rts_threshold: Option<u32>,
    /// dot11ShortRetryLimit.
    #[serde(default)]
    pub short_retry_limit: Option<u32>,
    /// dot11LongRetryLimit.
    #[serde(default)]
    pub long_retry_limit: Option<u32>,
    /// CWmin.
    #[serde(default)]
    pub cw_min: Option<u32>,
    /// CWmax.
    #[serde(default)]
    pub cw_max: Option<u32>,
    /// EIFS after an erroneous reception.
    #[serde(default)]
    pub eifs: Option<bool>,
}

/// The security suites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SuiteName {
    /// No protection.
    Open,
    /// WEP with a 40-bit key.
    Wep40,
    /// WEP with a 104-bit key.
    Wep104,
    /// TKIP.
    Tkip,
    /// CCMP-128.
    Ccmp128,
    /// CCMP-256.
    Ccmp256,
    /// GCMP-128.
    Gcmp128,
    /// GCMP-256.
    Gcmp256,
}

/// Authentication and key management.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AkmName {
    /// None (open or static WEP keys).
    None,
    /// PSK (AKM 2).
    Psk,
    /// PSK with SHA-256 (AKM 6).
    PskSha256,
}

/// DiscoSec management-frame authentication.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DiscoSecMode {
    /// Off.
    Off,
    /// Fast authentication.
    Fast,
    /// Full authentication.
    Full,
}

/// `[security]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecuritySection {
    /// The data-frame suite.
    pub suite: SuiteName,
    /// The AKM; absent: PSK for the RSN suites, none otherwise.
    #[serde(default)]
    pub akm: Option<AkmName>,
    /// The WPA2 passphrase (8 to 63 characters).
    #[serde(default)]
    pub passphrase: Option<String>,
    /// SSID.
    #[serde(default)]
    pub ssid: Option<String>,
    /// Static WEP key, hex.
    #[serde(default)]
    pub wep_key: Option<String>,
    /// Protected management frames (802.11w).
    #[serde(default)]
    pub pmf: bool,
    /// DiscoSec.
    #[serde(default)]
    pub discosec: Option<DiscoSecMode>,
}

/// `[[profiles]]`: a device profile: its clock, whether it has AES
/// instructions, and how many cycles it spends per host cycle on the same
/// code ([`crate::cost::DeviceProfile`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileDef {
    /// Name used by nodes.
    pub name: String,
    /// Clock in MHz.
    pub clock_mhz: f64,
    /// AES instructions: AES suites cost the host's own code; without,
    /// the calibration's table-AES cost.
    #[serde(default = "yes")]
    pub aes_instructions: bool,
    /// Cycles per host cycle on the same portable code.
    #[serde(default = "one")]
    pub arch_factor: f64,
    /// Cycles per host cycle on multi-precision arithmetic (ECDH).
    #[serde(default = "one")]
    pub bignum_factor: f64,
    /// What it stands for.
    #[serde(default)]
    pub description: String,
}

fn yes() -> bool {
    true
}

fn one() -> f64 {
    1.0
}

/// A node's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// An access point.
    Ap,
    /// A station.
    Sta,
    /// A wired host.
    Host,
    /// An attacker that injects frames.
    Attacker,
}

/// `[[nodes]]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeDef {
    /// Unique name; with `count` above 1 the nodes are `name1`..`nameN`.
    pub name: String,
    /// Role.
    pub role: Role,
    /// How many such nodes.
    #[serde(default = "one_u32")]
    pub count: u32,
    /// Device profile.
    #[serde(default = "host")]
    pub profile: String,
    /// The channel it sits on (0-based), for wireless roles.
    #[serde(default)]
    pub channel: u32,
}

fn one_u32() -> u32 {
    1
}

fn host() -> String {
    "host".to_string()
}

/// `[topology]`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologySection {
    /// Pairs of nodes that do not hear each other.
    #[serde(default)]
    pub hidden: Vec<[String; 2]>,
    /// Per-link frame loss.
    #[serde(default)]
    pub loss: Vec<LossDef>,
    /// Wired links.
    #[serde(default)]
    pub wired: Vec<WiredDef>,
}

/// `[[topology.loss]]`: frames from `from` are lost at `to` with
/// probability `p`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LossDef {
    /// Sender.
    pub from: String,
    /// Receiver.
    pub to: String,
    /// Loss probability, 0 to 1.
    pub p: f64,
    /// The same loss in the other direction too.
    #[serde(default)]
    pub both_ways: bool,
}

/// `[[topology.wired]]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WiredDef {
    /// One end.
    pub a: String,
    /// The other end.
    pub b: String,
    /// Rate, Mb/s.
    pub rate_mbps: f64,
    /// One-way delay, ms.
    #[serde(default)]
    pub delay_ms: f64,
    /// Queue limit, packets.
    #[serde(default = "queue")]
    pub queue: u32,
}

fn queue() -> u32 {
    100
}

/// Traffic generators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TrafficKind {
    /// Always a frame queued (saturation).
    SaturatedUdp,
    /// UDP at a constant rate.
    UdpCbr,
    /// iperf-style UDP for a duration.
    UdpIperf,
    /// iperf-style TCP for a duration.
    TcpIperf,
    /// A bulk TCP transfer of `bytes`.
    TcpBulk,
    /// ICMP echo.
    Ping,
}

/// `[[traffic]]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficDef {
    /// Generator.
    pub kind: TrafficKind,
    /// Source node.
    pub from: String,
    /// Destination node.
    pub to: String,
    /// Payload octets per packet.
    #[serde(default)]
    pub size: Option<u32>,
    /// Offered rate, Mb/s (udp-cbr).
    #[serde(default)]
    pub rate_mbps: Option<f64>,
    /// Octets to transfer (tcp-bulk).
    #[serde(default)]
    pub bytes: Option<u64>,
    /// Start, seconds of virtual time.
    #[serde(default)]
    pub start: f64,
    /// Duration, seconds.
    #[serde(default)]
    pub duration: Option<f64>,
}

/// Attacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AttackKind {
    /// Forged deauthentication.
    Deauth,
    /// Forged disassociation.
    Disassoc,
    /// Authentication flood.
    AuthFlood,
    /// Replayed frames.
    Replay,
}

/// `[[attacks]]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttackDef {
    /// What.
    pub kind: AttackKind,
    /// The attacking node (role `attacker`).
    pub from: String,
    /// Target node; absent: broadcast.
    #[serde(default)]
    pub target: Option<String>,
    /// Frames per second.
    #[serde(default)]
    pub rate_per_s: Option<f64>,
    /// Start, seconds.
    #[serde(default)]
    pub start: f64,
    /// Duration, seconds.
    #[serde(default)]
    pub duration: Option<f64>,
}

/// Which trials' channels are captured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CaptureMode {
    /// The first trial's channels.
    #[default]
    First,
    /// Every trial's channels.
    All,
    /// None.
    None,
}

/// `[output]`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSection {
    /// Channel captures.
    #[serde(default)]
    pub pcap: CaptureMode,
    /// PNG plots (default on).
    #[serde(default)]
    pub plots: Option<bool>,
}

/// A built-in scenario.
#[derive(Debug, Clone, Copy)]
pub struct Builtin {
    /// Its name for `wisec lab run NAME`.
    pub name: &'static str,
    /// Where it lives in the repository.
    pub path: &'static str,
    /// Its text.
    pub text: &'static str,
}

/// The built-in scenarios, also under `scenarios/` in the repository.
pub const BUILTIN: &[Builtin] = &[
    Builtin {
        name: "attacks",
        path: "scenarios/attacks.toml",
        text: include_str!("../../../scenarios/attacks.toml"),
    },
    Builtin {
        name: "auth",
        path: "scenarios/auth.toml",
        text: include_str!("../../../scenarios/auth.toml"),
    },
    Builtin {
        name: "discosec",
        path: "scenarios/discosec.toml",
        text: include_str!("../../../scenarios/discosec.toml"),
    },
    Builtin {
        name: "ccm-udp",
        path: "scenarios/ccm-udp.toml",
        text: include_str!("../../../scenarios/ccm-udp.toml"),
    },
    Builtin {
        name: "configs",
        path: "scenarios/configs.toml",
        text: include_str!("../../../scenarios/configs.toml"),
    },
    Builtin {
        name: "congestion",
        path: "scenarios/congestion.toml",
        text: include_str!("../../../scenarios/congestion.toml"),
    },
    Builtin {
        name: "multihop",
        path: "scenarios/multihop.toml",
        text: include_str!("../../../scenarios/multihop.toml"),
    },
    Builtin {
        name: "overhead",
        path: "scenarios/overhead.toml",
        text: include_str!("../../../scenarios/overhead.toml"),
    },
    Builtin {
        name: "saturation",
        path: "scenarios/saturation.toml",
        text: include_str!("../../../scenarios/saturation.toml"),
    },
];

/// The built-in scenario called `name`.
pub fn builtin(name: &str) -> Option<&'static Builtin> {
    BUILTIN.iter().find(|b| b.name == name)
}

/// Where a scenario error was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file (or `--set key=value` for an override).
    pub file: String,
    /// 1-based line and column, when known.
    pub position: Option<(usize, usize)>,
    /// The field, as a dotted path, when known.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
    /// The offending line of the file, for display.
    pub source_line: Option<String>,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some((l, c)) = self.position {
            write!(f, ":{l}:{c}")?;
        }
        f.write_str(": ")?;
        if let Some(field) = &self.field {
            write!(f, "{field}: ")?;
        }
        f.write_str(&self.message)?;
        if let (Some(src), Some((l, c))) = (&self.source_line, self.position) {
            let w = l.to_string().len();
            write!(f, "\n {l} | {src}\n {:w$} | {:>c$}", "", "^", w = w, c = c)?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

/// 1-based line and column of byte `offset` in `text`, and that line.
pub fn line_col(text: &str, offset: usize) -> (usize, usize, String) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = text.get(start..offset).map_or(1, |s| s.chars().count() + 1);
    let src = text
        .get(start..)
        .and_then(|s| s.lines().next())
        .unwrap_or("")
        .to_string();
    (line, col, src)
}

fn error_at(
    file: &str,
    text: &str,
    span: Option<std::ops::Range<usize>>,
    field: Option<String>,
    message: String,
) -> ScenarioError {
    let (position, source_line) = match span {
        Some(s) => {
            let (l, c, src) = line_col(text, s.start);
            (Some((l, c)), Some(src))
        }
        None => (None, None),
    };
    ScenarioError {
        file: file.to_string(),
        position,
        field,
        message,
        source_line,
    }
}

/// Parses `text` (read from `file`) without semantic checks.
fn parse_only(file: &str, text: &str) -> Result<Scenario, ScenarioError> {
    let de = toml::Deserializer::parse(text)
        .map_err(|e| error_at(file, text, e.span(), None, e.message().trim().to_string()))?;
    serde_path_to_error::deserialize::<_, Scenario>(de).map_err(|e| {
        let path = e
            .path()
            .to_string()
            .replace(".$__serde_spanned_private_value", "")
            .replace("$__serde_spanned_private_value.", "");
        let inner = e.into_inner();
        let mut field = (path != ".").then_some(path);
        let message = inner.message().trim().to_string();
        // serde names an unknown field in its message; the path then ends
        // at the key itself.
        if let (Some(f), Some(name)) = (&field, unknown_field_name(&message)) {
            if !f.ends_with(&name) {
                field = Some(format!("{f}.{name}"));
            }
        } else if field.is_none() {
            field = unknown_field_name(&message);
        }
        if let Some(name) = message
            .strip_prefix("missing field `")
            .and_then(|r| r.split('`').next())
        {
            field = Some(match field {
                Some(f) if !f.ends_with(name) => format!("{f}.{name}"),
                Some(f) => f,
                None => name.to_string(),
            });
        }
        error_at(file, text, inner.span(), field, message)
    })
}

/// The span of `key` in the line `key = ...` of the table that starts at
/// `within` (up to the next table header), or `within`.
fn key_span(text: &str, within: std::ops::Range<usize>, key: &str) -> std::ops::Range<usize> {
    let Some(body) = text.get(within.start..) else {
        return within;
    };
    let mut off = 0;
    for (i, line) in body.split_inclusive('\n').enumerate() {
        let t = line.trim_start();
        if i > 0 && t.starts_with('[') {
            break;
        }
        if let Some(rest) = t.strip_prefix(key) {
            if rest.trim_start().starts_with('=') {
                let at = within.start + off + (line.len() - t.len());
                return at..at + key.len();
            }
        }
        off += line.len();
    }
    within
}

fn unknown_field_name(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    Some(rest.split('`').next()?.to_string())
}

impl Scenario {
    /// Reads and checks the scenario file `path`.
    pub fn from_file(path: &Path) -> Result<Scenario, ScenarioError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
            file: file.clone(),
            position: None,
            field: None,
            message: e.to_string(),
            source_line: None,
        })?;
        Scenario::parse(&file, &text)
    }

    /// Parses and checks `text`, read from `file`.
    pub fn parse(file: &str, text: &str) -> Result<Scenario, ScenarioError> {
        let mut s = parse_only(file, text)?;
        s.check(file, text)?;
        s.source = Some((file.to_string(), text.to_string()));
        Ok(s)
    }

    /// The scenario with `key=value` overrides applied, checked again.
    pub fn with_overrides(
        &self,
        overrides: &[(String, String)],
    ) -> Result<Scenario, ScenarioError> {
        if overrides.is_empty() {
            return Ok(self.clone());
        }
        let mut doc = toml::Table::try_from(self).map_err(|e| ScenarioError {
            file: "scenario".into(),
            position: None,
            field: None,
            message: e.to_string(),
            source_line: None,
        })?;
        for (k, v) in overrides {
            let origin = format!("--set {k}={v}");
            set_path(&mut doc, k, parse_value(v)).map_err(|message| ScenarioError {
                file: origin.clone(),
                position: None,
                field: Some(k.clone()),
                message,
                source_line: None,
            })?;
        }
        let text = toml::to_string(&doc).map_err(|e| ScenarioError {
            file: "scenario".into(),
            position: None,
            field: None,
            message: e.to_string(),
            source_line: None,
        })?;
        let label = format!(
            "overrides ({})",
            overrides
                .iter()
                .map(|(k, v)| format!("--set {k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        let mut s = parse_only(&label, &text).map_err(|mut e| {
            // Positions in the re-serialised text mean nothing to the user.
            e.position = None;
            e.source_line = None;
            e
        })?;
        s.check(&label, &text).map_err(|mut e| {
            e.position = None;
            e.source_line = None;
            e
        })?;
        // Spans now point into text the user never saw.
        s.source = self.source.as_ref().map(|(f, _)| {
            (
                format!("{f} with {}", label.trim_start_matches("overrides ")),
                String::new(),
            )
        });
        Ok(s)
    }

    /// The scenario as TOML (as run, after overrides).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    /// Every node name, with `count` expanded.
    pub fn node_names(&self) -> Vec<String> {
        let mut v = Vec::new();
        for n in &self.nodes {
            let n = n.get_ref();
            if n.count <= 1 {
                v.push(n.name.clone());
            } else {
                v.extend((1..=n.count).map(|i| format!("{}{i}", n.name)));
            }
        }
        v
    }

    /// The experiment's parameters as `name=value` pairs (TOML values;
    /// strings without quotes).
    pub fn param_overrides(&self) -> Vec<(String, String)> {
        self.params
            .iter()
            .map(|(k, v)| (k.clone(), value_text(v.get_ref())))
            .collect()
    }

    /// The options of the experiment: seed, trials, quick, and as
    /// overrides the `[params]` and what the experiment reads of the
    /// other sections (see [`sections_used`]).
    pub fn run_options(&self) -> RunOptions {
        let mut overrides = self.param_overrides();
        if self.experiment.get_ref() == "saturation" {
            if let Some(phy) = &self.phy {
                let p = phy.get_ref();
                let std = match p.standard {
                    PhyName::B => "b",
                    PhyName::G => "g",
                    PhyName::A => "a",
                };
                overrides.push(("phy".into(), std.into()));
                if let Some(r) = p.rate {
                    overrides.push(("rate".into(), r.to_string()));
                }
                if let Some(sp) = p.short_preamble {
                    overrides.push(("short_preamble".into(), sp.to_string()));
                }
                if let Some(b) = &p.basic_rates {
                    let l: Vec<String> = b.iter().map(f64::to_string).collect();
                    overrides.push(("basic_rates".into(), format!("[{}]", l.join(","))));
                }
            }
            if let Some(mac) = &self.mac {
                let m = mac.get_ref();
                for (k, v) in [
                    ("short_retry_limit", m.short_retry_limit),
                    ("long_retry_limit", m.long_retry_limit),
                ] {
                    if let Some(v) = v {
                        overrides.push((k.into(), v.to_string()));
                    }
                }
                if let Some(e) = m.eifs {
                    let ifs = if e { "eifs" } else { "difs" };
                    overrides.push(("collision_ifs".into(), ifs.into()));
                }
            }
        }
        RunOptions {
            seed: self.seed,
            trials: self.trials,
            quick: self.quick,
            overrides,
            live: self.live,
        }
    }

    /// The experiment this scenario configures. An error the experiment
    /// reports about one of its parameters (`name: ...`) is located at
    /// that parameter in the file.
    pub fn create_experiment(&self) -> Result<Box<dyn Experiment>, ScenarioError> {
        self.check_sections()?;
        crate::experiment::create(self.experiment.get_ref(), &self.run_options()).map_err(|e| {
            let (file, text) = self
                .source
                .clone()
                .unwrap_or_else(|| ("scenario".to_string(), String::new()));
            let key = e.0.split(':').next().unwrap_or("").trim().to_string();
            let span = if text.is_empty() {
                None
            } else if let Some(sp) = self.param_span(&key) {
                Some(sp)
            } else if let Some(phy) = self.phy.as_ref().filter(|_| {
                matches!(
                    key.as_str(),
                    "phy" | "rate" | "short_preamble" | "basic_rates"
                )
            }) {
                let k = if key == "phy" {
                    "standard"
                } else {
                    key.as_str()
                };
                Some(key_span(&text, phy.span(), k))
            } else {
                self.mac
                    .as_ref()
                    .zip(mac_key(&key))
                    .map(|(mac, k)| key_span(&text, mac.span(), k))
            };
            let field = if self.params.contains_key(&key) {
                Some(format!("params.{key}"))
            } else if matches!(
                key.as_str(),
                "phy" | "rate" | "short_preamble" | "basic_rates"
            ) {
                Some(if key == "phy" {
                    "phy.standard".into()
                } else {
                    format!("phy.{key}")
                })
            } else {
                mac_key(&key)
                    .filter(|_| self.mac.is_some())
                    .map(|k| format!("mac.{k}"))
            };
            let message = match &field {
                Some(_) => {
                    e.0.split_once(':')
                        .map_or(e.0.clone(), |(_, m)| m.trim().to_string())
                }
                None => e.0.clone(),
            };
            error_at(&file, &text, span, field, message)
        })
    }

    /// An error at `span` of the file this scenario came from.
    fn located(
        &self,
        span: std::ops::Range<usize>,
        field: String,
        message: String,
    ) -> ScenarioError {
        let (file, text) = self
            .source
            .clone()
            .unwrap_or_else(|| ("scenario".to_string(), String::new()));
        let span = (!text.is_empty()).then_some(span);
        error_at(&file, &text, span, Some(field), message)
    }

    /// Rejects sections the experiment does not read, and fields of
    /// `[mac]` it does not read.
    pub fn check_sections(&self) -> Result<(), ScenarioError> {
        let exp = self.experiment.get_ref();
        if exp == "saturation" {
            // Fields of the sections it reads that saturation has no use
            // for: refused rather than ignored.
            let mut unread: Vec<(&str, std::ops::Range<usize>, &str)> = Vec::new();
            if let Some(phy) = &self.phy {
                let p = phy.get_ref();
                for (k, given) in [
                    ("non_erp", p.non_erp),
                    ("protection", p.protection.is_some()),
                    ("freq_mhz", p.freq_mhz.is_some()),
                ] {
                    if given {
                        unread.push(("phy", phy.span(), k));
                    }
                }
            }
            if let Some(mac) = &self.mac {
                let m = mac.get_ref();
                for (k, given) in [
                    ("rts_threshold", m.rts_threshold.is_some()),
                    ("cw_min", m.cw_min.is_some()),
                    ("cw_max", m.cw_max.is_some()),
                ] {
                    if given {
                        unread.push(("mac", mac.span(), k));
                    }
                }
            }
            if let Some((section, span, k)) = unread.into_iter().next() {
                let (file, text) = self
                    .source
                    .clone()
                    .unwrap_or_else(|| ("scenario".to_string(), String::new()));
                let span = (!text.is_empty()).then(|| key_span(&text, span, k));
                return Err(error_at(
                    &file,
                    &text,
                    span,
                    Some(format!("{section}.{k}")),
                    "saturation does not read this field (it reads phy.standard, phy.rate, \
phy.short_preamble, phy.basic_rates, mac.short_retry_limit, mac.long_retry_limit, mac.eifs; \
RTS/CTS is params.access)"
                        .into(),
                ));
            }
        }
        let used = sections_used(exp);
        let given: [(&str, Option<std::ops::Range<usize>>); 8] = [
            ("phy", self.phy.as_ref().map(Spanned::span)),
            ("mac", self.mac.as_ref().map(Spanned::span)),
            ("security", self.security.as_ref().map(Spanned::span)),
            ("profiles", self.profiles.first().map(Spanned::span)),
            ("nodes", self.nodes.first().map(Spanned::span)),
            ("topology", self.topology.as_ref().map(Spanned::span)),
            ("traffic", self.traffic.first().map(Spanned::span)),
            ("attacks", self.attacks.first().map(Spanned::span)),
        ];
        for (name, span) in given {
            if let Some(span) = span {
                if !used.contains(&name) {
                    return Err(self.located(
                        span,
                        name.into(),
                        format!(
                            "experiment `{exp}` does not read this section (it reads: {})",
                            if used.is_empty() {
                                "params only".to_string()
                            } else {
                                used.join(", ")
                            }
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The span of `params.name` in the file, if any.
    pub fn param_span(&self, name: &str) -> Option<std::ops::Range<usize>> {
        self.params.get(name).map(Spanned::span)
    }

    fn check(&self, file: &str, text: &str) -> Result<(), ScenarioError> {
        let err = |span: std::ops::Range<usize>, field: String, msg: String| {
            // Point at the key itself when the field names one.
            let key = field.rsplit('.').next().unwrap_or("");
            let span = if key.contains('[') || key.is_empty() {
                span
            } else {
                key_span(text, span, key)
            };
            Err(error_at(file, text, Some(span), Some(field), msg))
        };
        let whole = 0..text.len();
        if self.name.is_empty()
            || !self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return err(
                whole,
                "name".into(),
                "give a name of letters, digits, '-' and '_'".into(),
            );
        }
        let exp = self.experiment.get_ref();
        if crate::experiment::find(exp).is_none() {
            let names: Vec<&str> = crate::experiment::EXPERIMENTS
                .iter()
                .map(|e| e.name)
                .collect();
            return err(
                self.experiment.span(),
                "experiment".into(),
                format!("no experiment `{exp}` (there is: {})", names.join(", ")),
            );
        }
        if self.trials == Some(0) || self.trials.is_some_and(|t| t > 10_000) {
            return err(whole, "trials".into(), "give 1 to 10000 trials".into());
        }
        if let Some(phy) = &self.phy {
            let p = phy.get_ref();
            if let Some(r) = p.rate {
                let ok = crate::phy::Rate::from_mbps(r).is_some_and(|rate| match p.standard {
                    PhyName::B => rate.is_dsss(),
                    PhyName::A => rate.is_ofdm(),
                    PhyName::G => true,
                });
                if !ok {
                    return err(
                        phy.span(),
                        "phy.rate".into(),
                        format!(
                            "{r} Mb/s is not a rate of 802.11{}",
                            format!("{:?}", p.standard).to_lowercase()
                        ),
                    );
                }
            }
            if p.protection.is_some() && !(p.standard == PhyName::G && p.non_erp) {
                return err(
                    phy.span(),
                    "phy.protection".into(),
                    "protection applies to 802.11g with non_erp = true".into(),
                );
            }
        }
        if let Some(sec) = &self.security {
            let s = sec.get_ref();
            if let Some(p) = &s.passphrase {
                if !(8..=63).contains(&p.len()) || !p.bytes().all(|b| (32..=126).contains(&b)) {
                    return err(
                        sec.span(),
                        "security.passphrase".into(),
                        "a passphrase is 8 to 63 printable ASCII characters (IEEE Std 802.11-2020, J.4.1)".into(),
                    );
                }
            }
            if let Some(k) = &s.wep_key {
                let want = match s.suite {
                    SuiteName::Wep40 => 10,
                    SuiteName::Wep104 => 26,
                    _ => {
                        return err(
                            sec.span(),
                            "security.wep_key".into(),
                            "a WEP key needs suite wep40 or wep104".into(),
                        )
                    }
                };
                if k.len() != want || !k.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return err(
                        sec.span(),
                        "security.wep_key".into(),
                        format!("give {want} hex digits"),
                    );
                }
            }
        }
        let mut profiles: Vec<String> = crate::cost::DeviceProfile::builtin()
            .into_iter()
            .map(|p| p.name)
            .collect();
        for (i, p) in self.profiles.iter().enumerate() {
            let d = p.get_ref();
            if profiles.contains(&d.name) {
                return err(
                    p.span(),
                    format!("profiles[{i}].name"),
                    format!("profile `{}` is defined twice (or is built in)", d.name),
                );
            }
            let positive = |x: f64| x.is_finite() && x > 0.0;
            if ![d.clock_mhz, d.arch_factor, d.bignum_factor]
                .into_iter()
                .all(positive)
            {
                return err(
                    p.span(),
                    format!("profiles[{i}]"),
                    "clock and factors must be above 0".into(),
                );
            }
            profiles.push(d.name.clone());
        }
        let mut seen: Vec<String> = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            let d = n.get_ref();
            if d.name.is_empty() || d.count == 0 || d.count > 10_000 {
                return err(
                    n.span(),
                    format!("nodes[{i}]"),
                    "give a name and a count from 1 to 10000".into(),
                );
            }
            let names = if d.count <= 1 {
                vec![d.name.clone()]
            } else {
                (1..=d.count).map(|k| format!("{}{k}", d.name)).collect()
            };
            for nm in names {
                if seen.contains(&nm) {
                    return err(
                        n.span(),
                        format!("nodes[{i}].name"),
                        format!("node `{nm}` is defined twice"),
                    );
                }
                seen.push(nm);
            }
            if !profiles.contains(&d.profile) {
                return err(
                    n.span(),
                    format!("nodes[{i}].profile"),
                    format!(
                        "no device profile `{}` (there is: {})",
                        d.profile,
                        profiles.join(", ")
                    ),
                );
            }
        }
        let known = |name: &str| seen.iter().any(|s| s == name);
        let unknown = |name: &str| format!("no node `{name}` (nodes: {})", seen.join(", "));
        if let Some(t) = &self.topology {
            let tp = t.get_ref();
            for (i, pair) in tp.hidden.iter().enumerate() {
                for nm in pair {
                    if !known(nm) {
                        return err(t.span(), format!("topology.hidden[{i}]"), unknown(nm));
                    }
                }
            }
            for (i, l) in tp.loss.iter().enumerate() {
                for nm in [&l.from, &l.to] {
                    if !known(nm) {
                        return err(t.span(), format!("topology.loss[{i}]"), unknown(nm));
                    }
                }
                if !(0.0..=1.0).contains(&l.p) {
                    return err(
                        t.span(),
                        format!("topology.loss[{i}].p"),
                        "a probability is from 0 to 1".into(),
                    );
                }
            }
            for (i, w) in tp.wired.iter().enumerate() {
                for nm in [&w.a, &w.b] {
                    if !known(nm) {
                        return err(t.span(), format!("topology.wired[{i}]"), unknown(nm));
                    }
                }
                let ok = w.rate_mbps.is_finite()
                    && w.rate_mbps > 0.0
                    && w.delay_ms.is_finite()
                    && w.delay_ms >= 0.0;
                if !ok {
                    return err(
                        t.span(),
                        format!("topology.wired[{i}]"),
                        "rate must be above 0 and delay at least 0".into(),
                    );
                }
            }
        }
        for (i, tr) in self.traffic.iter().enumerate() {
            let d = tr.get_ref();
            for nm in [&d.from, &d.to] {
                if !known(nm) {
                    return err(tr.span(), format!("traffic[{i}]"), unknown(nm));
                }
            }
            let need = match d.kind {
                TrafficKind::UdpCbr if d.rate_mbps.is_none() => Some("rate_mbps"),
                TrafficKind::TcpBulk if d.bytes.is_none() => Some("bytes"),
                TrafficKind::UdpIperf | TrafficKind::TcpIperf if d.duration.is_none() => {
                    Some("duration")
                }
                _ => None,
            };
            if let Some(f) = need {
                return err(
                    tr.span(),
                    format!("traffic[{i}].{f}"),
                    format!("{:?} traffic needs `{f}`", d.kind).to_lowercase(),
                );
            }
        }
        for (i, a) in self.attacks.iter().enumerate() {
            let d = a.get_ref();
            let role = self
                .nodes
                .iter()
                .map(|n| n.get_ref())
                .find(|n| n.name == d.from)
                .map(|n| n.role);
            if role != Some(Role::Attacker) {
                return err(
                    a.span(),
                    format!("attacks[{i}].from"),
                    format!("`{}` is not a node with role = \"attacker\"", d.from),
                );
            }
            if let Some(t) = &d.target {
                if !known(t) {
                    return err(a.span(), format!("attacks[{i}].target"), unknown(t));
                }
            }
        }
        Ok(())
    }
}

/// The sections of a scenario that `experiment` reads; giving it others
/// is an error rather than silently ignored.
pub fn sections_used(experiment: &str) -> &'static [&'static str] {
    match experiment {
        "saturation" => &["phy", "mac"],
        _ => &[],
    }
}

/// The `[mac]` field behind an experiment parameter, if one.
fn mac_key(param: &str) -> Option<&'static str> {
    match param {
        "short_retry_limit" => Some("short_retry_limit"),
        "long_retry_limit" => Some("long_retry_limit"),
        "collision_ifs" => Some("eifs"),
        _ => None,
    }
}

/// A `--set` value: a TOML value, or else the text as a string.
pub fn parse_value(v: &str) -> toml::Value {
    let doc = format!("v = {v}");
    toml::from_str::<toml::Table>(&doc)
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(v.to_string()))
}

/// A value as `--set` text: strings bare, others in TOML syntax.
pub fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn set_path(doc: &mut toml::Table, key: &str, value: toml::Value) -> Result<(), String> {
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err("give a dotted path such as phy.rate or params.stations".into());
    }
    let mut root = toml::Value::Table(doc.clone());
    let mut cur = &mut root;
    let n = parts.len();
    for (i, p) in parts.iter().enumerate() {
        let last = i + 1 == n;
        cur = match cur {
            toml::Value::Table(t) => {
                if last {
                    t.insert(p.to_string(), value);
                    break;
                }
                t.entry(p.to_string())
                    .or_insert_with(|| toml::Value::Table(toml::Table::new()))
            }
            toml::Value::Array(a) => {
                let idx: usize = p
                    .parse()
                    .map_err(|_| format!("`{p}` is not an index into a list"))?;
                let len = a.len();
                let slot = a
                    .get_mut(idx)
                    .ok_or_else(|| format!("index {idx} is past the list's {len} entries"))?;
                if last {
                    *slot = value;
                    break;
                }
                slot
            }
            _ => return Err(format!("`{p}` is inside a value that is not a table")),
        };
    }
    match root {
        toml::Value::Table(t) => {
            *doc = t;
            Ok(())
        }
        _ => Err("the scenario is not a table".into()),
    }
}
