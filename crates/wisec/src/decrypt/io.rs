//! The files of `wisec encrypt` and `wisec decrypt`: IN opened (or
//! standard input), OUT written through a temporary file beside it (or to
//! standard output) in the format its name asks for, a progress line.

use crate::capture::{CaptureReader, CaptureWriter, Format, Progress};
use crate::error::Failure;
use crate::outfile::{check_target, is_stdio, shown, Dest, Pending, Sink, SYNC_EVERY};
use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// The files of one run: IN (`-`: standard input), OUT (`-`: standard
/// output) and the other outputs written beside OUT.
pub(crate) struct Files<'a> {
    /// IN.
    pub input: &'a Path,
    /// OUT.
    pub output: &'a Path,
    /// Other outputs (`--keys-out`), with their option names.
    pub others: Vec<(&'static str, &'a Path)>,
    /// Overwrite existing outputs.
    pub force: bool,
}

impl Files<'_> {
    /// Checks every output before anything is read or written: none is
    /// IN or another output, none exists unless `force`.
    pub fn check(&self) -> Result<(), Failure> {
        let others: Vec<(&str, &Path)> = self.others.iter().map(|(n, p)| (*n, *p)).collect();
        check_target("OUT", self.output, &[self.input], &others, self.force)
            .map_err(Failure::from)?;
        for (i, (name, p)) in self.others.iter().enumerate() {
            let rest: Vec<(&str, &Path)> = std::iter::once(("OUT", self.output))
                .chain(
                    others
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != i)
                        .map(|(_, o)| *o),
                )
                .collect();
            check_target(name, p, &[self.input], &rest, self.force).map_err(Failure::from)?;
        }
        Ok(())
    }

    /// True when OUT is standard output (reports then go to standard
    /// error).
    pub fn out_is_stdout(&self) -> bool {
        is_stdio(self.output)
    }
}

/// The container format OUT's name asks for: pcap for `.pcap`
/// (`.pcap.gz`), pcapng for `.pcapng` (`.pcapng.gz`), else the input's.
pub(crate) fn format_for(output: &Path, input: Format) -> Format {
    let name = output.to_string_lossy().to_ascii_lowercase();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    if name.ends_with(".pcap") || name.ends_with(".cap") || name.ends_with(".dmp") {
        Format::Pcap
    } else if name.ends_with(".pcapng") || name.ends_with(".ntar") {
        Format::Pcapng
    } else {
        input
    }
}

/// A run whose OUT is complete but not yet in place: the caller writes
/// its other outputs, then [`Written::commit`]s.
pub(crate) struct Written<T> {
    /// What the run returned.
    pub value: T,
    out: Option<Pending>,
}

impl<T> Written<T> {
    /// Renames OUT's temporary file onto OUT.
    pub fn commit(self) -> Result<T, Failure> {
        if let Some(p) = self.out {
            p.commit()?;
        }
        Ok(self.value)
    }
}

/// Opens IN, runs `f` writing into a temporary file beside OUT (or into
/// standard output) and returns once OUT is complete; on any error the
/// temporary file is removed and OUT is untouched (also on a signal).
/// Call [`Files::check`] first.
pub(crate) fn with_io<T>(
    files: &Files<'_>,
    f: impl FnOnce(
        &mut CaptureReader,
        &mut CaptureWriter<Sink>,
        &mut dyn FnMut(u32),
    ) -> anyhow::Result<T>,
) -> Result<Written<T>, Failure> {
    with_io_syncing(files, SYNC_EVERY, f).map(|(w, _)| w)
}

/// [`with_io`], with OUT sent to disk in the background every `every`
/// bytes; returns also how many times it was.
fn with_io_syncing<T>(
    files: &Files<'_>,
    every: u64,
    f: impl FnOnce(
        &mut CaptureReader,
        &mut CaptureWriter<Sink>,
        &mut dyn FnMut(u32),
    ) -> anyhow::Result<T>,
) -> Result<(Written<T>, u64), Failure> {
    let (input, output) = (files.input, files.output);
    let mut reader = if is_stdio(input) {
        CaptureReader::from_reader("standard input", Box::new(io::stdin()))
    } else {
        CaptureReader::open(input)
    }
    .map_err(anyhow::Error::from)?;
    let (pending, dest) = if is_stdio(output) {
        (None, Dest::Stdout(io::stdout()))
    } else {
        let p = Pending::create(output, files.force)?;
        let file = p.syncing(every)?;
        (Some(p), Dest::File(file))
    };
    let gz = output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    let sink = Sink::new(dest, gz.then(flate2::Compression::default));
    let format = format_for(output, reader.format());
    let mut writer = CaptureWriter::new(sink, format);
    let name = shown(input, "standard input");
    let mut meter = Meter::new(reader.progress(), &name);
    let result = f(&mut reader, &mut writer, &mut |n| meter.tick(n));
    meter.clear();
    let value = result?;
    let out_name = shown(output, "standard output");
    let write_err =
        |e: io::Error| anyhow::Error::new(e).context(format!("{out_name}: cannot write"));
    let sink = writer.into_inner().map_err(write_err)?;
    let syncs = sink.finish().map_err(write_err)?;
    let written = Written {
        value,
        out: pending,
    };
    Ok((written, syncs))
}

/// Writes a private file (mode 0600) through a temporary file, to be
/// committed after OUT.
pub(crate) fn private_file(path: &Path, force: bool, data: &[u8]) -> anyhow::Result<Pending> {
    let p = Pending::create(path, force)?;
    p.handle()?
        .write_all(data)
        .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", path.display()))?;
    Ok(p)
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
    fn new(progress: Progress, name: &str) -> Meter {
        let enabled =
            io::stderr().is_terminal() && progress.total().is_some_and(|t| t > PROGRESS_MIN);
        Meter {
            progress,
            enabled,
            calls: 0,
            last: Instant::now(),
            shown: false,
            name: name.to_string(),
        }
    }

    /// Notes `n` more records read; redraws the line at most every
    /// 200 ms, looking at the clock once per 256 records.
    fn tick(&mut self, n: u32) {
        if !self.enabled {
            return;
        }
        self.calls = self.calls.saturating_add(n);
        if self.calls < 256 {
            return;
        }
        self.calls = 0;
        if self.last.elapsed() < Duration::from_millis(200) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decrypt::cli::{decrypt_setup, DecryptArgs};
    use crate::decrypt::pipeline;
    use clap::Parser;

    #[derive(Parser)]
    struct Decrypt {
        #[command(flatten)]
        a: DecryptArgs,
    }

    /// `wisec decrypt IN OUT` with OUT sent to disk in the background every
    /// `every` bytes: OUT's bytes, the background syncs made, the frames
    /// decrypted.
    fn decrypt(input: &Path, output: &Path, every: u64, threads: &str) -> (Vec<u8>, u64, u64) {
        let args = [
            "decrypt".as_ref(),
            input.as_os_str(),
            output.as_os_str(),
            "--force".as_ref(),
            "--passphrase".as_ref(),
            "background sync".as_ref(),
            "--ssid".as_ref(),
            "flush".as_ref(),
            "--threads".as_ref(),
            threads.as_ref(),
        ];
        let a = Decrypt::try_parse_from(args).unwrap().a;
        let (mut store, cfg) = decrypt_setup(&a).ok().unwrap();
        let files = Files {
            input,
            output,
            others: Vec::new(),
            force: true,
        };
        let (written, syncs) = with_io_syncing(&files, every, |r, w, tick| {
            pipeline::decrypt(r, w, &mut store, cfg, tick)
        })
        .ok()
        .unwrap();
        let summary = written.commit().ok().unwrap();
        (std::fs::read(output).unwrap(), syncs, summary.decrypted)
    }

    #[test]
    fn outputs_synced_in_the_background_are_the_same_bytes() {
        let d = tempfile::tempdir().unwrap();
        let input = d.path().join("in.pcapng");
        let synth = [
            "wisec",
            "synth",
            "--ssid",
            "flush",
            "--passphrase",
            "background sync",
            "--stations",
            "4",
            "--frames",
            "5000",
        ];
        let cli =
            crate::cli::Cli::try_parse_from(synth.iter().copied().chain([input.to_str().unwrap()]))
                .unwrap();
        crate::cli::run(cli).ok().unwrap();
        for (name, threads) in [("out.pcap", "1"), ("out.pcapng.gz", "2")] {
            let output = d.path().join(name);
            let (plain, none, decrypted) = decrypt(&input, &output, u64::MAX, threads);
            assert_eq!(none, 0, "{name}");
            assert!(decrypted >= 20_000, "{name}: {decrypted} frames decrypted");
            // Twenty marks in OUT (at least 1 KiB apart), passed in a few
            // writes (of the pipeline's 1 MiB blocks, or gzip's 64 KiB):
            // usually 3 to 6 background syncs, at least one.
            let every = plain.len() as u64 / 20;
            assert!(every >= 1024, "{name}: {} bytes", plain.len());
            let (synced, syncs, again) = decrypt(&input, &output, every, threads);
            assert!(syncs >= 1, "{name}: no background sync");
            assert_eq!(again, decrypted, "{name}");
            assert!(synced == plain, "{name}: the outputs differ");
        }
    }
}
