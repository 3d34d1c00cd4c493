//! The `wisec ko-deps` command line.

use super::{analyze, KernelPaths, Report};
use crate::error::Failure;
use anyhow::anyhow;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Examples shown by `wisec ko-deps --help`.
pub const EXAMPLES: &str = "\
Examples:
  # A module of the running kernel (its kernel is found from its vermagic)
  wisec ko-deps /lib/modules/$(uname -r)/kernel/drivers/net/wireless/broadcom/b43/b43.ko

  # A module of an unpacked Debian kernel package, every symbol listed
  wisec ko-deps root/lib/modules/6.1.0-56-amd64/kernel/drivers/net/wireless/ath/ath9k/ath9k.ko \\
      --symbols

  # A compressed module, classified with a Module.symvers, as JSON
  wisec ko-deps brcmsmac.ko.zst --kernel-dir root/lib/modules/6.1.0-56-amd64 \\
      --symvers Module.symvers --json

  # The system view (seed 000's Figure 6) as a picture and for Graphviz
  wisec ko-deps b43.ko --png b43.png --dot b43.dot

Groups (seed 000, Figure 6):
  #KSC  kernel service calls: undefined symbols the core kernel (vmlinux) exports
  #EMC  external module calls: undefined symbols another module exports, per module
  #EDO  data objects: the module's own global data symbols, per section

Exit status: 0 on success, 1 when a file cannot be read or is not a kernel
module, 2 on a usage error.";

/// Arguments of `wisec ko-deps`.
#[derive(Debug, clap::Args)]
pub struct KoDepsArgs {
    /// The kernel module: .ko, or .ko.xz, .ko.zst, .ko.gz (the compression
    /// is told from the content)
    #[arg(value_name = "MODULE")]
    pub module: PathBuf,
    /// lib/modules/VERSION of the kernel the module belongs to [default:
    /// the one the module lies under, else /lib/modules/RELEASE of its
    /// vermagic]
    #[arg(long, value_name = "DIR")]
    pub kernel_dir: Option<PathBuf>,
    /// Read the core kernel's exports from this kernel image (an x86
    /// bzImage such as /boot/vmlinuz-VERSION, or an ELF vmlinux) [default:
    /// Module.symvers, System.map or boot/vmlinuz-VERSION beside the
    /// kernel directory, the first found]
    #[arg(long, value_name = "FILE")]
    pub vmlinux: Option<PathBuf>,
    /// Read the core kernel's exports from a System.map or /proc/kallsyms
    #[arg(long, value_name = "FILE")]
    pub system_map: Option<PathBuf>,
    /// Read the exports of the core kernel and of every module from a
    /// Module.symvers
    #[arg(long, value_name = "FILE")]
    pub symvers: Option<PathBuf>,
    /// Print the report as JSON
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print one table as CSV (RFC 4180), its columns named as the JSON's
    /// fields: providers (undefined symbols per provider), undefined
    /// (every undefined symbol) or params (the module's parameters)
    #[arg(long, value_name = "TABLE")]
    pub csv: Option<CsvTable>,
    /// Also list every undefined and global symbol, alias, firmware file
    /// and export
    #[arg(long)]
    pub symbols: bool,
    /// Write the system view as a Graphviz DOT file ('-' for standard output)
    #[arg(long, value_name = "FILE")]
    pub dot: Option<PathBuf>,
    /// Write the system view as a PNG picture
    #[arg(long, value_name = "FILE")]
    pub png: Option<PathBuf>,
    /// Overwrite the --dot and --png files if they exist
    #[arg(long)]
    pub force: bool,
}

/// Runs `wisec ko-deps`.
pub fn run(a: KoDepsArgs) -> Result<(), Failure> {
    let dot_stdout = a.dot.as_deref() == Some(Path::new("-"));
    if dot_stdout && (a.json || a.csv.is_some()) {
        return Err(Failure::Usage(
            "--dot - and --json or --csv both write to standard output; give --dot a file".into(),
        ));
    }
    if a.png.as_deref() == Some(Path::new("-")) {
        return Err(Failure::Usage("--png needs a file name".into()));
    }
    if let (Some(d), Some(p)) = (&a.dot, &a.png) {
        if d == p {
            return Err(Failure::Usage(format!(
                "--dot and --png name the same file {}",
                d.display()
            )));
        }
    }
    let outputs = [("--dot", a.dot.as_deref()), ("--png", a.png.as_deref())];
    for (name, p) in outputs {
        let Some(p) = p.filter(|p| *p != Path::new("-")) else {
            continue;
        };
        if p == a.module.as_path() {
            return Err(Failure::Usage(format!(
                "{} is the module itself; write to another file",
                p.display()
            )));
        }
        crate::outfile::check_target(name, p, &[a.module.as_path()], &[], a.force)
            .map_err(Failure::from)?;
    }
    let interrupted = interrupt_flag();
    let paths = KernelPaths {
        dir: a.kernel_dir.clone(),
        vmlinux: a.vmlinux.clone(),
        system_map: a.system_map.clone(),
        symvers: a.symvers.clone(),
    };
    let report = analyze(&a.module, &paths)?;
    let stop = || -> Result<(), Failure> {
        if interrupted.load(Ordering::SeqCst) {
            Err(Failure::Runtime(anyhow!("interrupted; no file written")))
        } else {
            Ok(())
        }
    };
    stop()?;
    if let Some(d) = &a.dot {
        let text = report.to_dot();
        if dot_stdout {
            crate::out!("{text}");
        } else {
            write_new(d, a.force, &stop, |tmp| {
                std::fs::write(tmp, text.as_bytes()).map_err(|e| e.to_string())
            })?;
        }
    }
    if let Some(p) = &a.png {
        let mut had_text = true;
        write_new(p, a.force, &stop, |tmp| {
            had_text = super::graph::render(&report, tmp)?;
            Ok(())
        })?;
        if !had_text {
            eprintln!(
                "wisec: warning: no TrueType font found (install fonts-dejavu-core or set \
                 WISEC_FONT): {} has no labels",
                p.display()
            );
        }
    }
    if dot_stdout {
        return Ok(());
    }
    print_report(&report, a.json, a.csv, a.symbols)
}

/// The tables of `--csv`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CsvTable {
    /// Undefined symbols per provider (the JSON's providers).
    Providers,
    /// Every undefined symbol (the JSON's undefined).
    Undefined,
    /// The module's parameters (the JSON's params).
    Params,
}

/// The columns of `--csv providers`.
const PROVIDER_COLUMNS: [&str; 7] = [
    "provider",
    "group",
    "functions",
    "data",
    "unknown",
    "total",
    "gpl_only",
];
/// The columns of `--csv undefined`.
const UNDEFINED_COLUMNS: [&str; 7] = [
    "name", "provider", "group", "kind", "gpl_only", "area", "weak",
];
/// The columns of `--csv params`.
const PARAM_COLUMNS: [&str; 3] = ["name", "type", "description"];

fn print_report(
    report: &Report,
    json: bool,
    csv: Option<CsvTable>,
    symbols: bool,
) -> Result<(), Failure> {
    let enc = |e: serde_json::Error| Failure::Runtime(anyhow!("encoding the report: {e}"));
    let text = if let Some(t) = csv {
        match t {
            CsvTable::Providers => crate::tabular::csv(&PROVIDER_COLUMNS, &report.providers),
            CsvTable::Undefined => crate::tabular::csv(&UNDEFINED_COLUMNS, &report.undefined),
            CsvTable::Params => crate::tabular::csv(&PARAM_COLUMNS, &report.params),
        }
        .map_err(enc)?
    } else if json {
        let mut s = serde_json::to_string_pretty(report)
            .map_err(|e| Failure::Runtime(anyhow!("encoding the report: {e}")))?;
        s.push('\n');
        s
    } else {
        report.to_text(symbols)
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is not an error of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::Runtime(anyhow!("standard output: {e}"))),
    }
}

/// Writes `path` through a temporary file beside it (with the same
/// extension, which the PNG encoder goes by) and a rename: the file is
/// either whole or untouched, also when interrupted.
fn write_new(
    path: &Path,
    force: bool,
    stop: &dyn Fn() -> Result<(), Failure>,
    write: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), Failure> {
    let dest = crate::outfile::rename_target(path);
    let stream = crate::outfile::is_stream(path);
    // A device or named pipe gets the bytes copied in: the file they are
    // made in goes to the temporary directory, not beside the device
    // (`/dev` is no place for it, nor writable for everyone).
    let dir = if stream {
        std::env::temp_dir()
    } else {
        crate::outfile::dir_of(&dest)
    };
    let suffix = path
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    let tmp = tempfile::Builder::new()
        .prefix(".wisec-")
        .suffix(&suffix)
        .tempfile_in(&dir)
        .map_err(|e| anyhow!("{}: cannot create a file there: {e}", dir.display()))?;
    write(tmp.path()).map_err(|e| anyhow!("{}: cannot write: {e}", path.display()))?;
    stop()?;
    if stream {
        // A rename would replace the device node or pipe itself.
        let copied = std::fs::File::open(tmp.path()).and_then(|mut from| {
            let mut to = std::fs::OpenOptions::new().write(true).open(path)?;
            std::io::copy(&mut from, &mut to)
        });
        return copied
            .map(|_| ())
            .map_err(|e| Failure::Runtime(anyhow!("{}: cannot write: {e}", path.display())));
    }
    let done = if force {
        tmp.persist(&dest).map(|_| ())
    } else {
        tmp.persist_noclobber(&dest).map(|_| ())
    };
    done.map_err(|e| Failure::Runtime(anyhow!("{}: cannot create: {}", path.display(), e.error)))
}

/// Set by Ctrl-C: the run then writes no file. A second Ctrl-C ends the
/// process at once.
fn interrupt_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = Arc::clone(&flag);
    let _ = ctrlc::set_handler(move || {
        if f.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    });
    flag
}
