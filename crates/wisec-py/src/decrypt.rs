//! `wisec.decrypt`: the capture decrypt pipeline of `wisec decrypt`,
//! streamed to Python frame by frame.
//!
//! The pipeline runs unchanged on a thread of its own: it reads a capture
//! file, or a pcap stream made from the frames of a Python iterable, and
//! writes pcapng into a channel, which a second thread parses back into
//! packets for the iterator. Rust threads never touch Python objects: the
//! iterable is pulled on the caller's thread, in batches, when the
//! pipeline asks for more input, and every wait releases the interpreter.

use crate::args::bytes_of;
use crate::{guard, panic_text, CaptureError, UsageError};
use clap::Parser;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyIterator};
use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use wisec::capture::{CaptureReader, CaptureWriter, Format, Interface, Record};
use wisec::decrypt::cli::{decrypt_setup, merge_handshakes, DecryptArgs};
use wisec::decrypt::link::{self, FcsMode};
use wisec::decrypt::pipeline::{self, DecryptConfig};
use wisec::decrypt::tracked::TrackedKeys;
use wisec::error::Failure;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Decryption>()
}

/// `wisec decrypt`'s options, parsed as the command parses them.
#[derive(Parser)]
#[command(name = "wisec decrypt", no_binary_name = true)]
struct Argv {
    #[command(flatten)]
    args: DecryptArgs,
}

/// Packets parsed back and waiting for Python.
const OUT_QUEUE: usize = 1024;
/// Frames of an iterable pulled at a time.
const PULL_FRAMES: usize = 512;
/// Bytes of an iterable pulled at a time.
const PULL_BYTES: usize = 256 << 10;

/// How the pipeline ended.
enum Ended {
    /// The summary, as `wisec decrypt --json` prints it.
    Done(String),
    /// The input is not a capture or is damaged before its first packet.
    Capture(String),
    /// Anything else (a bug): the message.
    Internal(String),
}

#[derive(Default)]
struct State {
    /// pcap bytes made from the iterable, not yet read by the pipeline.
    input: Vec<u8>,
    input_pos: usize,
    input_closed: bool,
    /// The pipeline waits for more of the iterable.
    want_input: bool,
    /// Decrypted packets: link type and bytes.
    out: VecDeque<(u16, Vec<u8>)>,
    parser_done: bool,
    ended: Option<Ended>,
    cancelled: bool,
}

#[derive(Default)]
struct Shared {
    s: Mutex<State>,
    cv: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.s.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(&self, g: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.cv.wait(g).unwrap_or_else(PoisonError::into_inner)
    }

    fn cancel(&self) {
        self.lock().cancelled = true;
        self.cv.notify_all();
    }
}

/// The pipeline's input when it comes from a Python iterable.
struct InputReader(Arc<Shared>);

impl Read for InputReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let sh = &self.0;
        let mut s = sh.lock();
        loop {
            if s.cancelled {
                return Ok(0);
            }
            let avail = s.input.len() - s.input_pos;
            if avail > 0 {
                let n = avail.min(buf.len());
                let from = s.input_pos;
                buf[..n].copy_from_slice(&s.input[from..from + n]);
                s.input_pos += n;
                if s.input_pos == s.input.len() {
                    s.input.clear();
                    s.input_pos = 0;
                }
                return Ok(n);
            }
            if s.input_closed {
                return Ok(0);
            }
            s.want_input = true;
            sh.cv.notify_all();
            s = sh.wait(s);
        }
    }
}

/// The pipeline's output: pcapng bytes into a channel.
struct OutputWriter(SyncSender<Vec<u8>>);

impl Write for OutputWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .send(buf.to_vec())
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the reader went away"))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The other end of [`OutputWriter`].
struct ChannelReader {
    rx: Receiver<Vec<u8>>,
    chunk: Vec<u8>,
    pos: usize,
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.chunk.len() {
            match self.rx.recv() {
                Ok(c) => {
                    self.chunk = c;
                    self.pos = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = (self.chunk.len() - self.pos).min(buf.len());
        buf[..n].copy_from_slice(&self.chunk[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// The MPDU of a packet (radio header, padding and FCS taken off), or the
/// packet as it is when it carries none.
fn mpdu_of(iface: &Interface, mode: FcsMode, mut data: Vec<u8>) -> Vec<u8> {
    let pad = link::unpad(iface, &mut data);
    let skip = pad.map_or(0, |p| p.len);
    let body = data.get(skip..).unwrap_or_default();
    let located = if pad.is_some() {
        link::locate_unpadded(iface, mode, body)
    } else {
        link::locate(iface, mode, body)
    };
    match located {
        Ok(f) => link::mpdu(body, &f).to_vec(),
        Err(_) => data.split_off(skip.min(data.len())),
    }
}

/// Parses the pipeline's pcapng output back into packets.
fn parse_output(sh: &Shared, rx: Receiver<Vec<u8>>, mpdu: Option<FcsMode>) {
    let src = ChannelReader {
        rx,
        chunk: Vec::new(),
        pos: 0,
    };
    if let Ok(mut reader) = CaptureReader::from_reader("decrypted", Box::new(src)) {
        let mut ifaces: Vec<Interface> = Vec::new();
        while let Ok(Some(rec)) = reader.next_record() {
            match rec {
                Record::Section => ifaces.clear(),
                Record::Interface(i) => ifaces.push(i),
                Record::Packet(p) => {
                    let iface = usize::try_from(p.interface)
                        .ok()
                        .and_then(|i| ifaces.get(i));
                    let lt = iface.map_or(0, |i| i.link_type);
                    let data = match (mpdu, iface) {
                        (Some(mode), Some(i)) if link::is_80211(lt) => mpdu_of(i, mode, p.data),
                        _ => p.data,
                    };
                    let mut s = sh.lock();
                    while s.out.len() >= OUT_QUEUE && !s.cancelled {
                        s = sh.wait(s);
                    }
                    if s.cancelled {
                        break;
                    }
                    s.out.push_back((lt, data));
                    drop(s);
                    sh.cv.notify_all();
                }
            }
        }
    }
    sh.lock().parser_done = true;
    sh.cv.notify_all();
}

/// Runs the pipeline from `reader` into `tx`, as `wisec decrypt` does.
fn run_pipeline(
    reader: io::Result<CaptureReader>,
    tx: SyncSender<Vec<u8>>,
    mut store: TrackedKeys,
    cfg: DecryptConfig,
) -> Ended {
    let mut reader = match reader {
        Ok(r) => r,
        Err(e) => return Ended::Capture(e.to_string()),
    };
    let mut writer = CaptureWriter::new(OutputWriter(tx), Format::Pcapng);
    let r = pipeline::decrypt(&mut reader, &mut writer, &mut store, cfg, &mut |_| {});
    drop(writer);
    match r {
        Ok(mut summary) => {
            merge_handshakes(&mut summary, &store);
            match serde_json::to_string(&summary) {
                Ok(j) => Ended::Done(j),
                Err(e) => Ended::Internal(format!("encoding the summary: {e}")),
            }
        }
        Err(e) => Ended::Capture(format!("{e:#}")),
    }
}

/// The decrypted frames of a capture, as bytes, in capture order (see
/// `wisec.decrypt`).
#[pyclass(module = "wisec")]
pub struct Decryption {
    shared: Arc<Shared>,
    /// The iterable's iterator (frames in), when the input is one.
    source: Option<Py<PyIterator>>,
    link_type: u16,
    summary: Option<String>,
    finished: bool,
}

fn usage_error(f: Failure) -> PyErr {
    match f {
        Failure::Usage(m) => UsageError::new_err(m),
        Failure::Runtime(e) => PyRuntimeError::new_err(format!("{e:#}")),
        Failure::Status(n) => PyRuntimeError::new_err(format!("exit status {n}")),
    }
}

/// A classic pcap file header for frames of `link_type`.
fn pcap_header(link_type: u16) -> Vec<u8> {
    let mut h = Vec::with_capacity(24);
    h.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    h.extend_from_slice(&2u16.to_le_bytes());
    h.extend_from_slice(&4u16.to_le_bytes());
    h.extend_from_slice(&[0; 8]);
    h.extend_from_slice(&(1u32 << 18).to_le_bytes());
    h.extend_from_slice(&u32::from(link_type).to_le_bytes());
    h
}

#[pymethods]
impl Decryption {
    /// Starts decrypting. `path`: a capture file; else `frames`, an
    /// iterable of frames of `link_type`. `args`: `wisec decrypt`'s options
    /// (`--tk=HEX`, `--passphrase=P`, ...). `mpdu`: yield the bare MPDU
    /// (radio header and FCS taken off) instead of the packet.
    #[new]
    #[pyo3(signature = (args, path = None, frames = None, link_type = 105, mpdu = false))]
    fn new(
        args: Vec<String>,
        path: Option<PathBuf>,
        frames: Option<&Bound<'_, PyAny>>,
        link_type: u16,
        mpdu: bool,
    ) -> PyResult<Decryption> {
        let mut argv = vec!["-".to_string(), "-".to_string()];
        argv.extend(args);
        let parsed = Argv::try_parse_from(&argv).map_err(|e| {
            let text = e.to_string();
            let line = text.lines().next().unwrap_or("").trim();
            UsageError::new_err(line.strip_prefix("error: ").unwrap_or(line).to_string())
        })?;
        let (store, cfg) = guard("decrypt", || {
            decrypt_setup(&parsed.args).map_err(usage_error)
        })?;
        let source = match (&path, frames) {
            (Some(_), None) => None,
            (None, Some(f)) => Some(f.try_iter()?.unbind()),
            _ => {
                return Err(PyTypeError::new_err(
                    "give a capture file or an iterable of frames",
                ))
            }
        };
        let shared = Arc::new(Shared::default());
        if source.is_some() {
            shared.lock().input = pcap_header(link_type);
        }
        let (tx, rx) = sync_channel::<Vec<u8>>(8);
        let mode = mpdu.then_some(cfg.fcs);
        let sh = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("wisec-parse".into())
            .spawn(move || {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    parse_output(&sh, rx, mode)
                }));
                if r.is_err() {
                    sh.lock().parser_done = true;
                    sh.cv.notify_all();
                }
            })
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
        let sh = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("wisec-decrypt".into())
            .spawn(move || {
                let reader = match path {
                    Some(p) => CaptureReader::open(&p).map_err(io::Error::other),
                    None => {
                        CaptureReader::from_reader("frames", Box::new(InputReader(Arc::clone(&sh))))
                            .map_err(io::Error::other)
                    }
                };
                let ended = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    run_pipeline(reader, tx, store, cfg)
                }))
                .unwrap_or_else(|p| Ended::Internal(panic_text(&p)));
                sh.lock().ended = Some(ended);
                sh.cv.notify_all();
            })
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
        Ok(Decryption {
            shared,
            source,
            link_type,
            summary: None,
            finished: false,
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        if self.finished {
            return Ok(None);
        }
        loop {
            let sh = Arc::clone(&self.shared);
            let streaming = self.source.is_some();
            // Waits, without the interpreter, until there is something to do.
            let (packet, need_input, ended) = py.detach(|| {
                let mut s = sh.lock();
                loop {
                    if let Some(p) = s.out.pop_front() {
                        drop(s);
                        sh.cv.notify_all();
                        return (Some(p), false, None);
                    }
                    if s.parser_done && s.ended.is_some() {
                        return (None, false, s.ended.take());
                    }
                    if streaming && s.want_input && !s.input_closed {
                        return (None, true, None);
                    }
                    s = sh.wait(s);
                }
            });
            if let Some((lt, data)) = packet {
                self.link_type = lt;
                return Ok(Some(PyBytes::new(py, &data)));
            }
            if need_input {
                if let Err(e) = self.pull(py) {
                    self.finished = true;
                    self.shared.cancel();
                    return Err(e);
                }
                continue;
            }
            self.finished = true;
            return match ended {
                Some(Ended::Done(j)) => {
                    self.summary = Some(j);
                    Ok(None)
                }
                Some(Ended::Capture(m)) => Err(CaptureError::new_err(m)),
                Some(Ended::Internal(m)) => Err(PyRuntimeError::new_err(format!(
                    "internal error in decrypt: {m} (please report it)"
                ))),
                None => Ok(None),
            };
        }
    }

    /// The link type (pcap LINKTYPE_*) of the frame yielded last: 105 for
    /// bare 802.11, 127 for radiotap, 1 for Ethernet (`ethernet=True`).
    #[getter]
    fn link_type(&self) -> u16 {
        self.link_type
    }

    /// The summary as `wisec decrypt --json` prints it (JSON text), once
    /// every frame was yielded; `None` before.
    #[getter]
    fn summary_json(&self) -> Option<String> {
        self.summary.clone()
    }

    /// Stops decrypting; the iterator ends.
    fn close(&mut self) {
        self.finished = true;
        self.shared.cancel();
    }
}

impl Decryption {
    /// Moves a batch of the iterable's frames to the pipeline's input.
    fn pull(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(src) = &self.source else {
            return Ok(());
        };
        let mut it = src.bind(py).clone();
        let mut buf = Vec::new();
        let mut frames = 0;
        let mut closed = false;
        while frames < PULL_FRAMES && buf.len() < PULL_BYTES {
            match it.next() {
                None => {
                    closed = true;
                    break;
                }
                Some(item) => {
                    let item = item?;
                    let data = bytes_of("frame", &item).map_err(|_| {
                        PyTypeError::new_err(format!(
                            "frames: item {frames} of this batch is {}, not bytes or a packet",
                            crate::args::type_name(&item)
                        ))
                    })?;
                    let len = u32::try_from(data.len()).unwrap_or(u32::MAX);
                    buf.extend_from_slice(&[0; 8]);
                    buf.extend_from_slice(&len.to_le_bytes());
                    buf.extend_from_slice(&len.to_le_bytes());
                    buf.extend_from_slice(&data);
                    frames += 1;
                }
            }
        }
        let mut s = self.shared.lock();
        s.input.extend_from_slice(&buf);
        s.want_input = false;
        s.input_closed |= closed;
        drop(s);
        self.shared.cv.notify_all();
        Ok(())
    }
}

impl Drop for Decryption {
    fn drop(&mut self) {
        self.shared.cancel();
    }
}
