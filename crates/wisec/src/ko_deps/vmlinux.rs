//! The core kernel's exports read from the kernel image itself: the
//! `__ksymtab`, `__ksymtab_gpl` and `__ksymtab_strings` sections the module
//! loader resolves against (`kernel/module/main.c`, `find_symbol`).
//!
//! Input is an x86 `bzImage` (`/boot/vmlinuz-*`: the boot sector and
//! setup code, then a compressed `vmlinux.bin`, an ELF file stripped of
//! its symbol table but not of its sections — `arch/x86/boot/compressed/
//! Makefile`) or an uncompressed `vmlinux` ELF file.

use super::compress::{self, Compression};
use super::elf::ElfView;
use super::module::{Kind, MAX_SIZE};
use super::Error;
use std::collections::BTreeMap;

/// One exported symbol of the core kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoreExport {
    /// `EXPORT_SYMBOL_GPL`.
    pub gpl_only: bool,
    /// Function or data, from the section its address lies in.
    pub kind: Option<Kind>,
}

/// Where the x86 boot protocol header sits (Documentation/arch/x86/boot.rst).
const SETUP_SECTS: usize = 0x1f1;
const HEADER_MAGIC_AT: usize = 0x202;
const VERSION_AT: usize = 0x206;
const PAYLOAD_OFFSET_AT: usize = 0x248;
const PAYLOAD_LENGTH_AT: usize = 0x24c;

fn le16(d: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(d.get(at..at + 2)?.try_into().ok()?))
}

fn le32(d: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(d.get(at..at + 4)?.try_into().ok()?))
}

/// The compressed kernel inside a bzImage and its format: boot protocol
/// 2.08 and later give `payload_offset` and `payload_length`, counted from
/// the start of the protected-mode code, which follows `setup_sects + 1`
/// sectors of 512 bytes.
pub fn bzimage_payload(image: &[u8]) -> Result<(&[u8], Compression), Error> {
    if image.get(HEADER_MAGIC_AT..HEADER_MAGIC_AT + 4) != Some(b"HdrS") {
        return Err(Error::Malformed(
            "neither an ELF vmlinux nor an x86 bzImage (no 'HdrS' boot header)".into(),
        ));
    }
    let version = le16(image, VERSION_AT).unwrap_or(0);
    if version < 0x0208 {
        return Err(Error::Malformed(format!(
            "bzImage boot protocol {}.{:02} has no payload fields (2.08 or later needed)",
            version >> 8,
            version & 0xff
        )));
    }
    let setup = match image[SETUP_SECTS] {
        0 => 4,
        n => usize::from(n),
    };
    let base = (setup + 1) * 512;
    let off = le32(image, PAYLOAD_OFFSET_AT).unwrap_or(0) as usize;
    let len = le32(image, PAYLOAD_LENGTH_AT).unwrap_or(0) as usize;
    let start = base.saturating_add(off);
    let payload = image.get(start..start.saturating_add(len)).ok_or_else(|| {
        Error::Truncated(format!(
            "the bzImage payload (bytes {start}..{}) lies beyond the end of the file ({} bytes)",
            start.saturating_add(len),
            image.len()
        ))
    })?;
    // The payload's own magic: gzip, xz, zstd, or LZMA-alone (properties
    // byte 0x5d for the kernel's lc=3 lp=0 pb=2).
    let format = match compress::detect(payload) {
        Ok(c) => c,
        Err(_) if payload.first() == Some(&0x5d) => Compression::Lzma,
        Err(Error::UnsupportedCompression(name)) => {
            return Err(Error::UnsupportedCompression(name));
        }
        Err(_) => {
            return Err(Error::Malformed(format!(
                "the bzImage payload is in an unknown format (starts with {})",
                compress::first_bytes(payload)
            )))
        }
    };
    Ok((payload, format))
}

/// The exports of a kernel image: a bzImage or an ELF vmlinux.
pub fn exports_of_image(image: &[u8]) -> Result<BTreeMap<String, CoreExport>, Error> {
    if image.starts_with(compress::ELF_MAGIC) {
        return ksymtab_exports(&ElfView::parse(image, false)?);
    }
    let (payload, format) = bzimage_payload(image)?;
    let vmlinux = compress::decompress(payload, format, MAX_SIZE)?;
    if !vmlinux.starts_with(compress::ELF_MAGIC) {
        return Err(Error::NotElf(format!(
            "{} (the decompressed bzImage payload)",
            compress::first_bytes(&vmlinux)
        )));
    }
    ksymtab_exports(&ElfView::parse(&vmlinux, false)?)
}

/// How `struct kernel_symbol` is laid out (`include/linux/export.h`).
#[derive(Debug, Clone, Copy)]
enum Layout {
    /// `CONFIG_HAVE_ARCH_PREL32_RELOCATIONS`: 32-bit offsets relative to
    /// each field — value, name, and (since 5.4) namespace.
    Prel32 { stride: usize },
    /// Absolute pointers of `word` bytes: value, name (, namespace).
    Absolute { stride: usize, word: usize },
}

/// Reads the export tables of a linked kernel.
pub fn ksymtab_exports(elf: &ElfView<'_>) -> Result<BTreeMap<String, CoreExport>, Error> {
    let strings = elf.section_by_name("__ksymtab_strings").ok_or_else(|| {
        Error::Malformed("the kernel image has no __ksymtab_strings section".into())
    })?;
    let string_bytes = elf.bytes(strings);
    let mut out = BTreeMap::new();
    let mut tables = 0;
    for (name, gpl) in [("__ksymtab", false), ("__ksymtab_gpl", true)] {
        let Some(table) = elf.section_by_name(name) else {
            continue;
        };
        tables += 1;
        let bytes = elf.bytes(table);
        if bytes.is_empty() {
            continue;
        }
        let layout = layouts(elf.is_64)
            .into_iter()
            .find(|l| decode(elf, table.addr, bytes, strings.addr, string_bytes, *l).is_some())
            .ok_or_else(|| {
                Error::Malformed(format!(
                    "{name}: entries do not point into __ksymtab_strings in any known layout"
                ))
            })?;
        for (sym, value) in
            decode(elf, table.addr, bytes, strings.addr, string_bytes, layout).unwrap_or_default()
        {
            let kind = elf
                .sections
                .iter()
                .find(|s| s.is_alloc() && s.contains(value))
                .map(|s| {
                    if s.is_code() {
                        Kind::Function
                    } else {
                        Kind::Data
                    }
                });
            out.insert(
                sym,
                CoreExport {
                    gpl_only: gpl,
                    kind,
                },
            );
        }
    }
    if tables == 0 {
        return Err(Error::Malformed(
            "the kernel image has no __ksymtab section".into(),
        ));
    }
    Ok(out)
}

fn layouts(is_64: bool) -> Vec<Layout> {
    let word = if is_64 { 8 } else { 4 };
    vec![
        Layout::Prel32 { stride: 12 },
        Layout::Prel32 { stride: 8 },
        Layout::Absolute {
            stride: 3 * word,
            word,
        },
        Layout::Absolute {
            stride: 2 * word,
            word,
        },
    ]
}

/// Every (name, value address) of a table in `layout`, or `None` when an
/// entry's name does not land on a string in `__ksymtab_strings`.
fn decode(
    elf: &ElfView<'_>,
    table_addr: u64,
    table: &[u8],
    strings_addr: u64,
    strings: &[u8],
    layout: Layout,
) -> Option<Vec<(String, u64)>> {
    let stride = match layout {
        Layout::Prel32 { stride } | Layout::Absolute { stride, .. } => stride,
    };
    if table.len() % stride != 0 {
        return None;
    }
    let word = |b: &[u8]| -> Option<u64> {
        Some(match (b.len(), elf.big_endian) {
            (4, false) => u64::from(u32::from_le_bytes(b.try_into().ok()?)),
            (4, true) => u64::from(u32::from_be_bytes(b.try_into().ok()?)),
            (8, false) => u64::from_le_bytes(b.try_into().ok()?),
            (8, true) => u64::from_be_bytes(b.try_into().ok()?),
            _ => return None,
        })
    };
    let mut out = Vec::with_capacity(table.len() / stride);
    for (i, e) in table.chunks_exact(stride).enumerate() {
        let at = table_addr.wrapping_add((i * stride) as u64);
        let (value, name) = match layout {
            Layout::Prel32 { .. } => {
                let rel = |o: usize| -> Option<u64> {
                    let v = word(&e[o..o + 4])? as u32 as i32;
                    Some(at.wrapping_add(o as u64).wrapping_add(v as i64 as u64))
                };
                (rel(0)?, rel(4)?)
            }
            Layout::Absolute { word: w, .. } => (word(&e[..w])?, word(&e[w..2 * w])?),
        };
        let off = usize::try_from(name.checked_sub(strings_addr)?).ok()?;
        let rest = strings.get(off..)?;
        let end = rest.iter().position(|&b| b == 0)?;
        // The linker merges string tails, so a name may start inside a
        // longer one; it must not be empty.
        if end == 0 {
            return None;
        }
        out.push((String::from_utf8_lossy(&rest[..end]).into_owned(), value));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_without_a_boot_header_is_refused() {
        let e = exports_of_image(&[0u8; 4096]).unwrap_err();
        assert!(e.to_string().contains("bzImage"), "{e}");
    }

    #[test]
    fn bzimage_payload_fields() {
        let mut img = vec![0u8; 4096];
        img[SETUP_SECTS] = 3;
        img[HEADER_MAGIC_AT..HEADER_MAGIC_AT + 4].copy_from_slice(b"HdrS");
        img[VERSION_AT..VERSION_AT + 2].copy_from_slice(&0x020fu16.to_le_bytes());
        img[PAYLOAD_OFFSET_AT..PAYLOAD_OFFSET_AT + 4].copy_from_slice(&16u32.to_le_bytes());
        img[PAYLOAD_LENGTH_AT..PAYLOAD_LENGTH_AT + 4].copy_from_slice(&6u32.to_le_bytes());
        img[2048 + 16..2048 + 22].copy_from_slice(b"\xfd7zXZ\x00");
        let (p, f) = bzimage_payload(&img).unwrap();
        assert_eq!((p.len(), f), (6, Compression::Xz));
        img[PAYLOAD_LENGTH_AT..PAYLOAD_LENGTH_AT + 4].copy_from_slice(&9000u32.to_le_bytes());
        assert!(matches!(bzimage_payload(&img), Err(Error::Truncated(_))));
        img[VERSION_AT..VERSION_AT + 2].copy_from_slice(&0x0206u16.to_le_bytes());
        assert!(bzimage_payload(&img).is_err());
    }
}
