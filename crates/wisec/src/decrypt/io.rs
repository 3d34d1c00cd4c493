//! The files of `wisec encrypt` and `wisec decrypt`: IN opened, OUT
//! written through a temporary file beside it, a progress line.

use crate::capture::{CaptureReader, CaptureWriter, Format, Progress};
use crate::error::{usage, Failure};
use flate2::write::GzEncoder;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The output stream: a temporary file beside OUT, gzip-compressed when
/// OUT ends in `.gz`.
pub(crate) enum Sink {
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
pub(crate) fn with_io<T>(
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
