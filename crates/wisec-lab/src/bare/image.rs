//! Building the bare machine's image from the workspace's sources.
//!
//! 1. `cargo rustc -p wisec-bare --release --lib --crate-type staticlib
//!    --target x86_64-unknown-linux-gnu` with `RUSTFLAGS="-C panic=abort
//!    --cfg wisec_bare_image"` (the explicit `--target` keeps those flags
//!    off build scripts and proc macros): a `no_std` static library of
//!    wisec-bare, wisec-crypto and their dependencies, on the pinned stable
//!    toolchain, with no rebuilt `core`;
//! 2. GNU ld with `crates/wisec-bare/image/link.ld`: an ELF64 kernel
//!    loaded at 1 MiB, entry `_start32` (kept, with symbols and debug
//!    information, as `wisec-bare.elf`);
//! 3. objcopy to ELF32 (`-O elf32-i386`, debug information stripped):
//!    QEMU's `-kernel` loads Multiboot kernels only as ELF32.

use super::BareError;
use crate::live::sys;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The host target the image is compiled for.
pub const TARGET: &str = "x86_64-unknown-linux-gnu";

/// A built image.
#[derive(Debug, Clone, Serialize)]
pub struct Image {
    /// The ELF32 image QEMU boots.
    pub image: PathBuf,
    /// The ELF64 kernel with symbols and debug information.
    pub elf: PathBuf,
    /// Size of the image file, octets.
    pub file_bytes: u64,
    /// Code, read-only data, data and zeroed data (.bss) when loaded.
    pub sections: Sections,
    /// Seconds the build took (compilation and link).
    pub build_seconds: f64,
}

/// Section sizes of the loaded image, octets.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Sections {
    /// .multiboot and .text.
    pub text: u64,
    /// .rodata.
    pub rodata: u64,
    /// .data.
    pub data: u64,
    /// .bss (stack, page tables, the NIC's rings and buffers).
    pub bss: u64,
}

/// The workspace this program was built from.
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| here.to_path_buf())
}

fn run(cmd: &mut Command, what: &str) -> Result<(), BareError> {
    let line = sys::command_line(cmd);
    let out = cmd
        .output()
        .map_err(|e| BareError::Tool(format!("{what}: cannot run {line}: {e}")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(25).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(BareError::Tool(format!(
            "{what} failed ({}): {line}\n{}",
            out.status,
            tail.join("\n")
        )));
    }
    Ok(())
}

/// Builds the image from the workspace at `root` into `out_dir`
/// (`wisec-bare.img` and `wisec-bare.elf`), using `target_dir` for cargo.
pub fn build(root: &Path, target_dir: &Path, out_dir: &Path) -> Result<Image, BareError> {
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        return Err(BareError::Tool(
            "the bare machine's image is built on x86-64 Linux only".into(),
        ));
    }
    let script = root.join("crates/wisec-bare/image/link.ld");
    if !script.is_file() {
        return Err(BareError::Tool(format!(
            "{}: not found; build the image from a wisec source tree (--source DIR)",
            script.display()
        )));
    }
    let ld = sys::find_program("ld").map_err(|e| BareError::Tool(e.to_string()))?;
    let objcopy = sys::find_program("objcopy").map_err(|e| BareError::Tool(e.to_string()))?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    std::fs::create_dir_all(out_dir)
        .map_err(|e| BareError::Io(format!("creating {}", out_dir.display()), e))?;
    let t0 = Instant::now();
    let mut c = Command::new(cargo);
    c.current_dir(root)
        .args([
            "rustc",
            "-p",
            "wisec-bare",
            "--release",
            "--lib",
            "--crate-type",
            "staticlib",
            "--target",
            TARGET,
            "--target-dir",
        ])
        .arg(target_dir)
        .env("RUSTFLAGS", "-C panic=abort --cfg wisec_bare_image")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_TARGET_DIR");
    run(&mut c, "compiling wisec-bare")?;
    let lib = target_dir.join(TARGET).join("release/libwisec_bare.a");
    let elf = out_dir.join("wisec-bare.elf");
    let image = out_dir.join("wisec-bare.img");
    let elf_tmp = out_dir.join(".wisec-bare.elf.part");
    let img_tmp = out_dir.join(".wisec-bare.img.part");
    run(
        Command::new(&ld)
            .args([
                "-m",
                "elf_x86_64",
                "-n",
                "-static",
                "--gc-sections",
                "-z",
                "noexecstack",
                "-z",
                "max-page-size=4096",
                "-u",
                "_start32",
                "-T",
            ])
            .arg(&script)
            .arg("-o")
            .arg(&elf_tmp)
            .arg(&lib),
        "linking the image",
    )?;
    run(
        Command::new(&objcopy)
            .args(["-I", "elf64-x86-64", "-O", "elf32-i386", "--strip-debug"])
            .arg(&elf_tmp)
            .arg(&img_tmp),
        "converting the image to ELF32",
    )?;
    for (tmp, dst) in [(&elf_tmp, &elf), (&img_tmp, &image)] {
        std::fs::rename(tmp, dst)
            .map_err(|e| BareError::Io(format!("writing {}", dst.display()), e))?;
    }
    let file_bytes = std::fs::metadata(&image)
        .map_err(|e| BareError::Io(format!("reading {}", image.display()), e))?
        .len();
    let sections = sections(&image).unwrap_or_default();
    Ok(Image {
        image,
        elf,
        file_bytes,
        sections,
        build_seconds: t0.elapsed().as_secs_f64(),
    })
}

/// Reads the section sizes from an ELF32 image's section headers.
pub fn sections(image: &Path) -> Option<Sections> {
    let b = std::fs::read(image).ok()?;
    let u16_at = |o: usize| Some(u16::from_le_bytes(b.get(o..o + 2)?.try_into().ok()?));
    let u32_at = |o: usize| Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?));
    if b.get(..5)? != b"\x7fELF\x01" {
        return None;
    }
    let shoff = u32_at(0x20)? as usize;
    let shentsize = usize::from(u16_at(0x2e)?);
    let shnum = usize::from(u16_at(0x30)?);
    let shstrndx = usize::from(u16_at(0x32)?);
    let sh = |i: usize| shoff + i * shentsize;
    let strtab = u32_at(sh(shstrndx) + 0x10)? as usize;
    let mut s = Sections::default();
    for i in 0..shnum {
        let name_off = u32_at(sh(i))? as usize;
        let name = b.get(strtab + name_off..)?;
        let name = &name[..name.iter().position(|c| *c == 0)?];
        let size = u64::from(u32_at(sh(i) + 0x14)?);
        match name {
            b".multiboot" | b".text" => s.text += size,
            b".rodata" => s.rodata += size,
            b".data" => s.data += size,
            b".bss" => s.bss += size,
            _ => {}
        }
    }
    Some(s)
}
