//! The lab's built-in experiments, and the interface between an experiment
//! and whatever runs it and writes its report.
//!
//! An experiment is a plan of independent trials ([`Experiment::plan`]),
//! each a pure function of its [`TrialSpec`] (which carries its seed) and
//! of the [`Calibration`] ([`Experiment::run_trial`]), and a summary of the
//! finished trials ([`Experiment::summarize`]). The runner owns the loop:
//! it can show progress, write each [`TrialResult`] as soon as it exists
//! (so an interrupted run leaves the completed trials readable), skip
//! trials already written, and render the [`Report`]'s [`Table`]s and
//! [`Plot`]s. A trial hands every PPDU of its channels to the
//! [`TrialEnv::observer`] when one is set, for the channel pcap; the
//! [`TrialResult::secrets`] tell a decryptor how to read it.

pub mod attacks;
#[cfg(target_os = "linux")]
pub mod auth;
pub mod ccm_udp;
pub mod configs;
pub mod congestion;
pub mod discosec;
#[cfg(target_os = "linux")]
pub mod multihop;
pub mod overhead;
#[cfg(target_os = "linux")]
pub mod overhead_live;
mod params;
pub mod saturation;

use crate::cost::Calibration;
use crate::node::ChannelId;
use crate::phy::PhyStandard;
use crate::sim::{AirFrame, Simulator};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

/// A built-in experiment, as `wisec lab list` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExperimentInfo {
    /// The name given to `wisec lab run`.
    pub name: &'static str,
    /// One line on what it measures.
    pub summary: &'static str,
}

/// Every built-in experiment.
pub const EXPERIMENTS: &[ExperimentInfo] = &[
    ExperimentInfo {
        name: "saturation",
        summary: "DCF saturation throughput for 1-50 stations, basic access and RTS/CTS, \
beside Bianchi's analytical model (IEEE JSAC 18(3), 2000)",
    },
    ExperimentInfo {
        name: "overhead",
        summary: "throughput overhead of WEP, TKIP, CCMP, GCMP and DiscoSec over TCP and \
UDP at 2, 11 and 54 Mb/s, with ping times, beside seed 001's tables 6-4 to 6-8",
    },
    ExperimentInfo {
        name: "configs",
        summary: "seed 001's Configurations 1-4 (laptop to server, laptop to laptop through the AP, \
behind walls, hidden laptops): TCP/UDP throughput and overhead of open, WEP, TKIP and CCMP beside \
Tables 6-4 to 6-17 and 6-20, and Table 4-2's maxima per standard and rate",
    },
    ExperimentInfo {
        name: "discosec",
        summary: "DiscoSec no_auth, fast_auth and full_auth UDP throughput on the cube, \
routerboard, laptop and host APs, and key-exchange delay against AP load, beside seed 003",
    },
    ExperimentInfo {
        name: "ccm-udp",
        summary: "m UDP datagrams of 50-1000 octets in the clear and with AES-CCM payloads \
between bare and Linux endpoints, timings D0-D5, beside seed 000's Figures 13-20",
    },
    ExperimentInfo {
        name: "congestion",
        summary: "1, 2 and 4 802.11n clients fetching 320 KB over TCP through a 100 Mb/s wired \
bottleneck with 0-150 Mb/s of competing traffic, and Table 3's exchange breakdown, beside seed 000",
    },
    ExperimentInfo {
        name: "auth",
        summary: "802.1X authentication time of PEAP, LEAP, EAP-TLS, EAP-TTLS and EAP-MD5 with \
FreeRADIUS and wpa_supplicant over a live link, WPA2-Enterprise end to end, beside seed 001's \
tables 6-19 and 6-21 and seed 003's key exchange (live only, needs root)",
    },
    ExperimentInfo {
        name: "multihop",
        summary: "IPsec setup time (strongSwan, IKEv1 3DES and IKEv2) between the ends of a \
babeld-routed 802.11b ad hoc chain, with a streaming load on the relay or the receiver at nice \
-20 to 19, beside seed 004's Figures 8 and 9",
    },
    ExperimentInfo {
        name: "attacks",
        summary: "deauthentication, disassociation, authentication floods and replay against none, PMF and DiscoSec on the air, with the stations' throughput and associations over time",
    },
];

/// The experiment called `name`.
pub fn find(name: &str) -> Option<&'static ExperimentInfo> {
    EXPERIMENTS.iter().find(|e| e.name == name)
}

/// One cell of a [`Table`], or one parameter value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// A flag.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A real number.
    Num(f64),
    /// Text.
    Text(String),
    /// No value (an empty cell: not measured, not published).
    Null,
}

impl Value {
    /// The value as a float, for integers and reals.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Int(i) => Some(i as f64),
            Value::Num(x) => Some(x),
            _ => None,
        }
    }

    /// The value as text, for text values.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    /// Integers as they are, reals with up to three decimals (trailing
    /// zeros kept so that columns align), text as it is, `Null` empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Num(x) if x.is_finite() => write!(f, "{x:.3}"),
            Value::Num(_) => Ok(()),
            Value::Text(s) => f.write_str(s),
            Value::Null => Ok(()),
        }
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Value {
        Value::Bool(v)
    }
}
impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}
impl From<u32> for Value {
    fn from(v: u32) -> Value {
        Value::Int(i64::from(v))
    }
}
impl From<u64> for Value {
    fn from(v: u64) -> Value {
        Value::Int(i64::try_from(v).unwrap_or(i64::MAX))
    }
}
impl From<usize> for Value {
    fn from(v: usize) -> Value {
        Value::Int(i64::try_from(v).unwrap_or(i64::MAX))
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Num(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_string())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

/// A column of a [`Table`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Column {
    /// Short name (CSV header, JSON key).
    pub name: String,
    /// Unit ("Mb/s", "ms", "%"), if any.
    pub unit: Option<String>,
}

impl Column {
    /// The header as a report shows it: `name (unit)`.
    pub fn header(&self) -> String {
        match &self.unit {
            Some(u) => format!("{} ({u})", self.name),
            None => self.name.clone(),
        }
    }
}

/// A table of results: named columns with units and rows of values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Identifier, usable as a file name (`table_6_4`).
    pub name: String,
    /// Caption.
    pub title: String,
    /// Columns.
    pub columns: Vec<Column>,
    /// Rows; each has one value per column.
    pub rows: Vec<Vec<Value>>,
    /// Remarks printed under the table (Markdown).
    pub notes: Vec<String>,
}

impl Table {
    /// An empty table.
    pub fn new(name: &str, title: &str) -> Table {
        Table {
            name: name.to_string(),
            title: title.to_string(),
            columns: Vec::new(),
            rows: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Adds a column (builder style).
    pub fn column(mut self, name: &str, unit: Option<&str>) -> Table {
        self.columns.push(Column {
            name: name.to_string(),
            unit: unit.map(str::to_string),
        });
        self
    }

    /// Adds a row; it is padded with `Null` or cut to the column count.
    pub fn push(&mut self, mut row: Vec<Value>) {
        row.resize(self.columns.len(), Value::Null);
        self.rows.push(row);
    }

    /// The index of the column `name`.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// Grouped bars of this table: one group per row, labelled by the
    /// column `category`, one bar per column of `columns` (series named
    /// after the column; a lab column beside the seed's column puts the
    /// seed's values beside the lab's). Empty or non-numeric cells draw no
    /// bar; a column that has no number at all gives no series. `None`
    /// when no series has a bar.
    pub fn bars(
        &self,
        category: &str,
        columns: &[&str],
        x_label: &str,
        y_label: &str,
    ) -> Option<Plot> {
        let ci = self.column_index(category)?;
        let categories: Vec<String> = self
            .rows
            .iter()
            .map(|r| r.get(ci).map(ToString::to_string).unwrap_or_default())
            .collect();
        let series: Vec<Series> = columns
            .iter()
            .filter_map(|name| {
                let i = self.column_index(name)?;
                let points: Vec<(f64, f64)> = self
                    .rows
                    .iter()
                    .enumerate()
                    .filter_map(|(k, r)| match r.get(i) {
                        Some(Value::Num(x)) if x.is_finite() => Some((k as f64, *x)),
                        Some(Value::Int(x)) => Some((k as f64, *x as f64)),
                        _ => None,
                    })
                    .collect();
                (!points.is_empty()).then(|| Series {
                    label: (*name).to_string(),
                    points,
                    errors: None,
                })
            })
            .collect();
        (!series.is_empty()).then(|| Plot {
            name: self.name.clone(),
            title: self.title.clone(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            kind: PlotKind::Bars,
            categories,
            series,
        })
    }

    /// The table as CSV (RFC 4180 quoting), headers with units.
    pub fn to_csv(&self) -> String {
        fn cell(s: &str) -> String {
            if s.contains([',', '"', '\n']) {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s.to_string()
            }
        }
        let mut out = String::new();
        let h: Vec<String> = self.columns.iter().map(|c| cell(&c.header())).collect();
        out.push_str(&h.join(","));
        out.push('\n');
        for r in &self.rows {
            let v: Vec<String> = r
                .iter()
                .map(|v| match v {
                    // Full precision in CSV.
                    Value::Num(x) if x.is_finite() => format!("{x}"),
                    other => cell(&other.to_string()),
                })
                .collect();
            out.push_str(&v.join(","));
            out.push('\n');
        }
        out
    }

    /// The table as Markdown, with its title and notes.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("**{}**\n\n", self.title);
        let h: Vec<String> = self.columns.iter().map(Column::header).collect();
        out.push_str(&format!("| {} |\n", h.join(" | ")));
        out.push_str(&format!("|{}\n", "---|".repeat(self.columns.len())));
        for r in &self.rows {
            let v: Vec<String> = r
                .iter()
                .map(|v| v.to_string().replace('|', "\\|"))
                .collect();
            out.push_str(&format!("| {} |\n", v.join(" | ")));
        }
        for n in &self.notes {
            out.push_str(&format!("\n{n}\n"));
        }
        out
    }

    /// The table as aligned plain text, for a terminal.
    pub fn to_text(&self) -> String {
        let cells: Vec<Vec<String>> =
            std::iter::once(self.columns.iter().map(Column::header).collect())
                .chain(
                    self.rows
                        .iter()
                        .map(|r| r.iter().map(Value::to_string).collect()),
                )
                .collect();
        let n = self.columns.len();
        let widths: Vec<usize> = (0..n)
            .map(|i| {
                cells
                    .iter()
                    .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = format!("{}\n", self.title);
        for r in &cells {
            let line: Vec<String> = r
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:>w$}"))
                .collect();
            out.push_str(line.join("  ").trim_end());
            out.push('\n');
        }
        out
    }
}

/// A named parameter of an experiment, for the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// Name.
    pub name: String,
    /// Value.
    pub value: Value,
    /// What it means.
    pub description: String,
}

impl Param {
    /// A parameter.
    pub fn new(name: &str, value: impl Into<Value>, description: &str) -> Param {
        Param {
            name: name.to_string(),
            value: value.into(),
            description: description.to_string(),
        }
    }
}

/// One planned trial.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialSpec {
    /// Position in the plan (0-based), stable for a given configuration.
    pub index: usize,
    /// A unique label usable as a file name (`ccmp128-tcp-11mbps-t03`).
    pub label: String,
    /// The trial's seed (derived from the run's seed and the point).
    pub seed: u64,
    /// The point's coordinates (suite, transport, rate, trial number...).
    pub params: BTreeMap<String, Value>,
}

/// What a channel of a trial is, for the pcap's radiotap headers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChannelInfo {
    /// The simulator's channel number.
    pub id: usize,
    /// The PHY family.
    pub phy: PhyStandard,
    /// Centre frequency, MHz (2437 for channel 6, 5180 for channel 36).
    pub freq_mhz: u16,
}

/// How to decrypt what a trial put on the air (the lab's keys are not
/// secret: they exist so that captures can be checked by other tools).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Secrets {
    /// The security suite ("open", "wep40", "tkip", "ccmp128",
    /// "discosec-fast", ...).
    pub suite: String,
    /// SSID.
    pub ssid: String,
    /// WPA2 passphrase (RSN suites).
    pub passphrase: Option<String>,
    /// Static WEP key in hex (WEP suites).
    pub wep_key_hex: Option<String>,
    /// The MSK of an 802.1X authentication in hex (WPA2-Enterprise): its
    /// first 32 octets are the PMK.
    #[serde(default)]
    pub msk_hex: Option<String>,
}

/// What one trial produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialResult {
    /// The trial.
    pub spec: TrialSpec,
    /// Scalar results by name (`throughput_mbps`, `ping_ms`, ...).
    pub metrics: BTreeMap<String, Value>,
    /// Optional per-trial tables (time series, per-station figures).
    pub tables: Vec<Table>,
    /// The trial's channels.
    pub channels: Vec<ChannelInfo>,
    /// Keys of what went on the air.
    pub secrets: Option<Secrets>,
    /// Simulated time at the end of the trial, ns.
    pub sim_time_ns: u64,
    /// Simulator events processed.
    pub events: u64,
}

impl TrialResult {
    /// A result with no metrics yet.
    pub fn new(spec: &TrialSpec) -> TrialResult {
        TrialResult {
            spec: spec.clone(),
            metrics: BTreeMap::new(),
            tables: Vec::new(),
            channels: Vec::new(),
            secrets: None,
            sim_time_ns: 0,
            events: 0,
        }
    }

    /// The metric `name` as a float.
    pub fn metric(&self, name: &str) -> Option<f64> {
        self.metrics.get(name).and_then(Value::as_f64)
    }
}

/// A series of a [`Plot`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Legend.
    pub label: String,
    /// (x, y) points.
    pub points: Vec<(f64, f64)>,
    /// Error half-widths (standard deviations) per point, if any.
    pub errors: Option<Vec<f64>>,
}

/// How a [`Plot`] is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlotKind {
    /// Lines through the points.
    Line,
    /// Grouped bars; x values are category indices into
    /// [`Plot::categories`].
    Bars,
}

/// A figure of the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plot {
    /// Identifier, usable as a file name.
    pub name: String,
    /// Caption.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// How to draw it.
    pub kind: PlotKind,
    /// Category names for [`PlotKind::Bars`].
    pub categories: Vec<String>,
    /// The series.
    pub series: Vec<Series>,
}

/// The summary of a run: what the Markdown report shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The experiment.
    pub experiment: String,
    /// One paragraph on what was run.
    pub description: String,
    /// The resolved parameters.
    pub parameters: Vec<Param>,
    /// Result tables, the seeds' published figures beside the lab's.
    pub tables: Vec<Table>,
    /// Figures.
    pub plots: Vec<Plot>,
    /// Remarks: where and why the lab differs from the seeds (Markdown).
    pub notes: Vec<String>,
}

/// A model parameter set so that the lab matches a published result: the
/// numbers it affects are not an independent reproduction of that result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fitted {
    /// The parameter (`ccm-udp bare endpoint: send`).
    pub parameter: String,
    /// Its value as used.
    pub value: String,
    /// The seed table or figure it was fitted to.
    pub fitted_to: String,
    /// The numbers of the report that depend on it.
    pub affects: String,
}

impl Fitted {
    /// A fitted parameter.
    pub fn new(parameter: &str, value: &str, fitted_to: &str, affects: &str) -> Fitted {
        Fitted {
            parameter: parameter.into(),
            value: value.into(),
            fitted_to: fitted_to.into(),
            affects: affects.into(),
        }
    }
}

/// The fitted parameters of an experiment as a Markdown section: each with
/// the figure it was fitted to and what it affects, "none" when the
/// experiment declares none, and a warning when it declares nothing.
pub fn fitted_markdown(fitted: Option<&[Fitted]>) -> String {
    let mut s = String::from(
        "## Fitted parameters

",
    );
    match fitted {
        None => s.push_str(
            "Not declared: this experiment does not say which of its parameters were fitted \
to a seed's results; treat every comparison with a seed as unverified.\n\n",
        ),
        Some([]) => s.push_str(
            "None: no number of this report depends on a parameter fitted to a seed's \
results (device costs are measured on this host and scaled by documented clock and \
architecture ratios).\n\n",
        ),
        Some(f) => {
            s.push_str(
                "These parameters were set to match a seed's published numbers; the numbers \
they affect are not an independent reproduction of that result.\n\n\
| parameter | value | fitted to | affects |\n|---|---|---|---|\n",
            );
            for x in f {
                s.push_str(&format!(
                    "| {} | {} | {} | {} |\n",
                    x.parameter, x.value, x.fitted_to, x.affects
                ));
            }
            s.push('\n');
        }
    }
    s
}

/// Options common to every experiment (`wisec lab run NAME ...`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RunOptions {
    /// The run's seed; every trial's seed derives from it.
    pub seed: u64,
    /// Trials per point; `None` for the experiment's default.
    pub trials: Option<u32>,
    /// A reduced version (shorter transfers, fewer points) for smoke tests.
    pub quick: bool,
    /// `name=value` overrides of the experiment's parameters.
    pub overrides: Vec<(String, String)>,
    /// Run live: real programs in network namespaces over the medium in
    /// real time ([`crate::live`]) instead of in virtual time.
    pub live: bool,
}

/// Why an experiment could not be set up or a trial failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExperimentError(pub String);

impl fmt::Display for ExperimentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ExperimentError {}

impl ExperimentError {
    /// The message of a trial stopped by an interrupt.
    pub const INTERRUPTED: &'static str = "interrupted";

    /// A trial stopped by an interrupt (Ctrl-C, SIGTERM).
    pub fn interrupted() -> ExperimentError {
        ExperimentError(Self::INTERRUPTED.into())
    }

    /// Whether this is [`ExperimentError::interrupted`].
    pub fn is_interrupted(&self) -> bool {
        self.0 == Self::INTERRUPTED
    }
}

/// A channel observer shared between the runner and a trial's simulator:
/// called with every PPDU put on the air (see [`Simulator::set_observer`]).
pub type SharedObserver = Rc<RefCell<dyn FnMut(&AirFrame<'_>)>>;

/// What a trial gets from the runner besides its spec.
pub struct TrialEnv<'a> {
    /// The crypto cost model.
    pub calibration: &'a Calibration,
    /// Where to send every PPDU, for the channel pcap.
    pub observer: Option<SharedObserver>,
    /// A live trial writes its channel capture here (a simulated one
    /// uses [`TrialEnv::observer`]).
    pub capture_file: Option<std::path::PathBuf>,
    /// Where a live trial keeps its programs' logs; `None`: a temporary
    /// directory.
    pub work_dir: Option<std::path::PathBuf>,
    /// Set when the run is interrupted: a live trial stops its programs and
    /// returns [`ExperimentError::interrupted`].
    pub interrupt: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Told the virtual time now and then while a simulated trial runs
    /// (see [`TrialEnv::watch`]): the progress within a trial.
    pub tick: Option<Rc<dyn Fn(crate::Time)>>,
}

impl fmt::Debug for TrialEnv<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TrialEnv")
            .field("calibration", &self.calibration)
            .field("observer", &self.observer.is_some())
            .field("capture_file", &self.capture_file)
            .field("work_dir", &self.work_dir)
            .finish_non_exhaustive()
    }
}

impl<'a> TrialEnv<'a> {
    /// An environment without observer.
    pub fn new(calibration: &'a Calibration) -> TrialEnv<'a> {
        TrialEnv {
            calibration,
            observer: None,
            capture_file: None,
            work_dir: None,
            interrupt: None,
            tick: None,
        }
    }

    /// Whether the run was asked to stop (Ctrl-C, SIGTERM).
    pub fn interrupted(&self) -> bool {
        self.interrupt
            .as_ref()
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::SeqCst))
    }

    /// Connects the observer, if any, to `channel` of `sim`.
    pub fn observe(&self, sim: &mut Simulator, channel: ChannelId) {
        if let Some(o) = &self.observer {
            let o = Rc::clone(o);
            sim.set_observer(channel, Box::new(move |f| (o.borrow_mut())(f)));
        }
        self.watch(sim);
    }

    /// Shows the progress of `sim`'s virtual time while the trial runs
    /// (done by [`TrialEnv::observe`] too).
    pub fn watch(&self, sim: &mut Simulator) {
        if let Some(t) = &self.tick {
            let t = Rc::clone(t);
            sim.set_tick(Box::new(move |now| t(now)));
        }
    }
}

/// An experiment: a plan of independent trials and their summary.
pub trait Experiment {
    /// The name given to `wisec lab run`.
    fn name(&self) -> &str;
    /// One paragraph on what it measures and how.
    fn description(&self) -> String;
    /// The resolved parameters.
    fn parameters(&self) -> Vec<Param>;
    /// Every trial, in the order they run.
    fn plan(&self) -> Vec<TrialSpec>;
    /// Runs one trial. The same spec and calibration give the same result,
    /// bit for bit.
    fn run_trial(
        &self,
        spec: &TrialSpec,
        env: &mut TrialEnv<'_>,
    ) -> Result<TrialResult, ExperimentError>;
    /// The report over the finished trials (any subset of the plan).
    fn summarize(&self, results: &[TrialResult]) -> Report;
    /// The programs a live run needs, checked (each missing one named with
    /// its Debian package) before any trial starts: by default the live
    /// lab's traffic tools.
    fn live_programs(&self) -> Vec<&'static str> {
        vec!["ip", "iperf3", "ping"]
    }
    /// The parameters fitted to a seed's results that the report's numbers
    /// depend on: `Some(vec![])` for none, `None` while the experiment has
    /// not declared them (its report then says so).
    fn fitted(&self) -> Option<Vec<Fitted>> {
        None
    }
}

/// The experiment `name` configured by `opts`, for the experiments that
/// implement [`Experiment`].
pub fn create(name: &str, opts: &RunOptions) -> Result<Box<dyn Experiment>, ExperimentError> {
    if opts.live {
        if let Some(why) = not_live(name) {
            return Err(ExperimentError(format!(
                "experiment '{name}' cannot run live: {why}"
            )));
        }
    }
    match name {
        "saturation" => Ok(Box::new(saturation::Saturation::new(opts)?)),
        "overhead" => Ok(Box::new(overhead::Overhead::new(opts)?)),
        "discosec" => Ok(Box::new(discosec::Discosec::new(opts)?)),
        "ccm-udp" => Ok(Box::new(ccm_udp::CcmUdp::new(opts)?)),
        "configs" => Ok(Box::new(configs::Configs::new(opts)?)),
        "congestion" => Ok(Box::new(congestion::Congestion::new(opts)?)),
        "attacks" => Ok(Box::new(attacks::Attacks::new(opts)?)),
        #[cfg(target_os = "linux")]
        "auth" => Ok(Box::new(auth::Auth::new(opts)?)),
        #[cfg(not(target_os = "linux"))]
        "auth" => Err(ExperimentError(
            "auth runs live only, and the live lab needs Linux (network namespaces and TAP devices)"
                .into(),
        )),
        #[cfg(target_os = "linux")]
        "multihop" => Ok(Box::new(multihop::Multihop::new(opts)?)),
        #[cfg(not(target_os = "linux"))]
        "multihop" => Err(ExperimentError(
            "multihop runs live only, in Linux network namespaces".into(),
        )),
        _ => Err(ExperimentError(format!(
            "no experiment '{name}' behind the generic interface"
        ))),
    }
}

/// Why experiment `name` cannot run live (`None`: it can).
pub fn not_live(name: &str) -> Option<&'static str> {
    match name {
        "overhead" | "auth" | "multihop" => None,
        "saturation" => Some(
            "its stations are saturated frame sources inside the simulator, with no IP stack; \
for a saturated live link use 'wisec bench live'",
        ),
        "discosec" => Some(
            "its results are the simulated device profiles' costs (the Cube and Routerboard APs); \
run a DiscoSec link live with 'wisec lab live --suite discosec-fast'",
        ),
        "ccm-udp" => {
            Some("its endpoints are models of the seed's bare machine and Linux host, not programs")
        }
        "configs" => Some(
            "its walls and hidden laptops are the medium's signal model; run one link live with \
'wisec lab run overhead --live'",
        ),
        "congestion" => Some(
            "its wired bottleneck and competing flows are simulated links; the live lab has no \
shaped wired bottleneck yet",
        ),
        "attacks" => Some(
            "its attacker injects frames into the medium on a schedule of virtual time; \
'wisec attack run' runs the attacks against the protocol cores",
        ),
        _ => Some("no such experiment"),
    }
}

/// Whether experiment `name` runs only live (real programs in network
/// namespaces, no simulated version).
pub fn live_only(name: &str) -> bool {
    name == "multihop" || name == "auth"
}

/// Runs every trial of `exp` in order, calling `progress` after each, and
/// returns the results and the summary. Stops at the first failing trial.
pub fn run_all(
    exp: &dyn Experiment,
    env: &mut TrialEnv<'_>,
    progress: &mut dyn FnMut(usize, usize, &TrialResult),
) -> Result<(Vec<TrialResult>, Report), ExperimentError> {
    let plan = exp.plan();
    let total = plan.len();
    let mut results = Vec::with_capacity(total);
    for (i, spec) in plan.iter().enumerate() {
        let r = exp.run_trial(spec, env)?;
        progress(i + 1, total, &r);
        results.push(r);
    }
    let report = exp.summarize(&results);
    Ok((results, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_render_as_csv_markdown_and_text() {
        let mut t = Table::new("t", "A table")
            .column("suite", None)
            .column("throughput", Some("Mb/s"));
        t.push(vec!["open".into(), 5.25.into()]);
        t.push(vec!["a,\"b\"".into()]);
        assert_eq!(
            t.to_csv(),
            "suite,throughput (Mb/s)\nopen,5.25\n\"a,\"\"b\"\"\",\n"
        );
        let md = t.to_markdown();
        assert!(md.contains("| suite | throughput (Mb/s) |"), "{md}");
        assert!(md.contains("| open | 5.250 |"), "{md}");
        assert!(
            t.to_text().contains(" open              5.250\n"),
            "{}",
            t.to_text()
        );
        assert_eq!(t.column_index("throughput"), Some(1));
    }

    #[test]
    fn values_round_trip_through_json() {
        let v = vec![
            Value::Bool(true),
            Value::Int(-3),
            Value::Num(1.5),
            Value::Text("x".into()),
            Value::Null,
        ];
        let s = serde_json::to_string(&v).unwrap();
        assert_eq!(s, "[true,-3,1.5,\"x\",null]");
        let back: Vec<Value> = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
        assert_eq!(Value::from(Some(2u32)).as_f64(), Some(2.0));
        assert_eq!(Value::from(None::<u32>), Value::Null);
    }
}
