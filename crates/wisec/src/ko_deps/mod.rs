//! `wisec ko-deps`: the external interface of a Linux kernel module — seed
//! 000's study of the b43 Wi-Fi driver (its Figure 6 and the counts of its
//! section 4.3) as a tool, for any module.
//!
//! A module is an ELF relocatable object that the kernel links at load
//! time. What it needs from the rest of the system is its undefined
//! symbols; what it offers, its global functions and data and its
//! `EXPORT_SYMBOL`s; how it is configured, the parameters in `.modinfo`.
//! [`Module`] reads all of that (decompressing `.ko.xz`, `.ko.zst`,
//! `.ko.gz` first); [`Kernel`] finds the kernel the module belongs to and
//! [`classify`] tells, for each undefined symbol, whether the core kernel
//! (#KSC) or which other module (#EMC) provides it; [`Report`] puts it
//! together as a table, JSON, DOT or a PNG ([`graph`]).

pub mod classify;
pub mod cli;
pub mod compress;
pub mod elf;
pub mod graph;
pub mod kernel;
pub mod modinfo;
pub mod module;
pub mod report;
pub mod vmlinux;

pub use kernel::{Kernel, KernelPaths, Provider};
pub use module::{Kind, Module};
pub use report::Report;

use std::path::Path;

/// Why a file is not a kernel module wisec can read.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// Zero bytes.
    #[error("empty file")]
    Empty,
    /// Neither the ELF magic nor a known compression.
    #[error("not an ELF file, nor gzip, xz or zstd data (it starts with {0})")]
    NotElf(String),
    /// A compression recognised but not decompressed here.
    #[error("compressed with {0}, which wisec does not decompress (kernels compress modules with gzip, xz or zstd)")]
    UnsupportedCompression(&'static str),
    /// The decompressor failed: corrupt or truncated data.
    #[error("corrupt or truncated {format} data: {detail}")]
    Decompress {
        /// gzip, xz, zstd.
        format: &'static str,
        /// The decompressor's words.
        detail: String,
    },
    /// Decompresses to more than the limit.
    #[error("the {format} data decompresses to more than {limit} bytes")]
    TooLarge {
        /// gzip, xz, zstd.
        format: &'static str,
        /// The limit.
        limit: u64,
    },
    /// An ELF file of another type.
    #[error("{0}, not a kernel module (an ELF relocatable object, ET_REL)")]
    NotRelocatable(String),
    /// A relocatable object without the module structure.
    #[error("an ELF relocatable object but not a kernel module: it has no .gnu.linkonce.this_module section (an object file before modpost?)")]
    NotAModule,
    /// No `.symtab`.
    #[error("no symbol table (.symtab): the module was stripped of its symbols, so neither the kernel nor wisec can tell what it needs (strip --strip-debug keeps them)")]
    Stripped,
    /// A part of the file lies beyond its end.
    #[error("truncated or corrupt: {0}")]
    Truncated(String),
    /// Headers or tables that do not make sense.
    #[error("malformed ELF: {0}")]
    Malformed(String),
}

/// Reads and parses the module at `path`.
pub fn read_module(path: &Path) -> anyhow::Result<Module> {
    use anyhow::Context;
    let meta = std::fs::metadata(path).with_context(|| format!("{}", path.display()))?;
    if meta.is_dir() {
        anyhow::bail!("{}: is a directory, not a module file", path.display());
    }
    let bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
    let file = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Module::parse(&bytes, &file).with_context(|| format!("{}", path.display()))
}

/// Reads the module at `path`, finds its kernel from `paths` (or beside
/// it), and builds the report.
pub fn analyze(path: &Path, paths: &KernelPaths) -> anyhow::Result<Report> {
    let module = read_module(path)?;
    let kernel = Kernel::open(paths, path, module.modinfo.release())?;
    Ok(Report::new(&module, path, &kernel))
}
