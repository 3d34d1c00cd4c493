//! One kernel module's own view of its interface: what it leaves
//! undefined, what it defines globally (functions and data, by section),
//! what it exports to other modules, and its `.modinfo`.

use super::compress::{self, Compression};
use super::elf::{file_type_name, ElfView, Place, Section, Symbol};
use super::modinfo::{ModInfo, Param};
use super::Error;
use serde::Serialize;
use std::collections::BTreeMap;

/// The most a module (or kernel image) may decompress to.
pub const MAX_SIZE: u64 = 1 << 30;

/// The trailer of an appended module signature
/// (`scripts/sign-file.c`, `include/linux/module_signature.h`).
const SIG_MAGIC: &[u8] = b"~Module signature appended~\n";
/// `struct module_signature`: algo, hash, id_type, signer_len,
/// key_id_len, 3 bytes of padding, sig_len (big-endian 32 bits).
const SIG_INFO_LEN: usize = 12;

/// Function or data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Code (`STT_FUNC`, or a symbol in an executable section).
    Function,
    /// Anything else: objects, per-CPU variables, tables.
    Data,
}

/// A symbol the module defines and others may see.
#[derive(Debug, Clone, Serialize)]
pub struct Defined {
    /// Its name.
    pub name: String,
    /// Function or data.
    pub kind: Kind,
    /// The section it lives in (`*ABS*`, `*COM*` for those).
    pub section: String,
    /// `st_size`.
    pub size: u64,
    /// `weak` when `STB_WEAK`, else `global`.
    pub binding: &'static str,
}

/// A symbol the module exports with `EXPORT_SYMBOL*`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Export {
    /// Its name.
    pub name: String,
    /// `EXPORT_SYMBOL_GPL`: only GPL-compatible modules may use it.
    pub gpl_only: bool,
    /// Function or data, from the module's own symbol table.
    pub kind: Option<Kind>,
}

/// An undefined symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undefined {
    /// Its name.
    pub name: String,
    /// `STB_WEAK`: the module loads without it.
    pub weak: bool,
}

/// The signature appended by `sign-file`.
#[derive(Debug, Clone, Serialize)]
pub struct Signature {
    /// `PKCS#7` (id_type 2) or the raw id type.
    pub id_type: String,
    /// Length of the signature in bytes.
    pub length: u32,
}

/// A parsed kernel module.
#[derive(Debug, Clone)]
pub struct Module {
    /// `name=` from `.modinfo`, else the file name without `.ko…`.
    pub name: String,
    /// How the file was compressed.
    pub compression: Compression,
    /// Size of the (decompressed) module in bytes.
    pub size: usize,
    /// "ELF64 little-endian x86-64".
    pub elf: String,
    /// Undefined symbols, sorted by name, each once.
    pub undefined: Vec<Undefined>,
    /// Global defined symbols, in symbol table order.
    pub defined: Vec<Defined>,
    /// Sections that hold global symbols, in file order, with the count of
    /// functions and of data in each.
    pub section_order: Vec<String>,
    /// Exported symbols, sorted by name.
    pub exports: Vec<Export>,
    /// The `.modinfo` entries.
    pub modinfo: ModInfo,
    /// The appended signature, if any.
    pub signature: Option<Signature>,
}

impl Module {
    /// Reads a module from the bytes of its file, compressed or not.
    /// `file_name` gives the name when `.modinfo` has none.
    pub fn parse(bytes: &[u8], file_name: &str) -> Result<Module, Error> {
        let compression = compress::detect(bytes)?;
        let plain;
        let data: &[u8] = if compression == Compression::None {
            bytes
        } else {
            plain = compress::decompress(bytes, compression, MAX_SIZE)?;
            if !plain.starts_with(compress::ELF_MAGIC) {
                return Err(Error::NotElf(format!(
                    "{} after {} decompression",
                    compress::first_bytes(&plain),
                    compression.name()
                )));
            }
            &plain
        };
        let mut m = Module::parse_elf(data, file_name)?;
        m.compression = compression;
        Ok(m)
    }

    fn parse_elf(data: &[u8], file_name: &str) -> Result<Module, Error> {
        let signature = signature(data);
        let elf = ElfView::parse(data, true)?;
        if elf.e_type != object::elf::ET_REL.0 {
            return Err(Error::NotRelocatable(file_type_name(elf.e_type)));
        }
        if elf.section_by_name(".gnu.linkonce.this_module").is_none() {
            return Err(Error::NotAModule);
        }
        if !elf.has_symtab {
            return Err(Error::Stripped);
        }
        let modinfo = elf
            .section_by_name(".modinfo")
            .map(|s| ModInfo::parse(elf.bytes(s)))
            .unwrap_or_default();
        let name = modinfo
            .get("name")
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| module_name_of_file(file_name));

        let mut undefined: BTreeMap<&str, bool> = BTreeMap::new();
        let mut defined = Vec::new();
        let mut used_sections = vec![false; elf.sections.len()];
        for s in &elf.symbols {
            match s.place {
                Place::Undefined => {
                    if !s.name.is_empty() {
                        let weak = s.bind == object::elf::STB_WEAK.0;
                        let e = undefined.entry(&s.name).or_insert(weak);
                        *e &= weak;
                    }
                }
                _ if !s.is_global() || is_section_or_file(s) => {}
                place => {
                    let section = match place {
                        Place::Section(i) => {
                            used_sections[i] = true;
                            section_name(elf.section(i))
                        }
                        Place::Absolute => "*ABS*".to_string(),
                        Place::Common => "*COM*".to_string(),
                        Place::Other(n) => format!("*{n:#x}*"),
                        Place::Undefined => unreachable!("handled above"),
                    };
                    defined.push(Defined {
                        name: s.name.clone(),
                        kind: if s.is_function() {
                            Kind::Function
                        } else {
                            Kind::Data
                        },
                        section,
                        size: s.size,
                        binding: if s.bind == object::elf::STB_WEAK.0 {
                            "weak"
                        } else {
                            "global"
                        },
                    });
                }
            }
        }
        let mut section_order: Vec<String> = used_sections
            .iter()
            .enumerate()
            .filter(|(_, u)| **u)
            .map(|(i, _)| section_name(elf.section(i)))
            .collect();
        for d in &defined {
            if d.section.starts_with('*') && !section_order.contains(&d.section) {
                section_order.push(d.section.clone());
            }
        }
        let exports = exports(&elf);
        Ok(Module {
            name,
            compression: Compression::None,
            size: data.len(),
            elf: elf.describe(),
            undefined: undefined
                .into_iter()
                .map(|(n, weak)| Undefined {
                    name: n.to_string(),
                    weak,
                })
                .collect(),
            defined,
            section_order,
            exports,
            modinfo,
            signature,
        })
    }

    /// Global functions.
    pub fn functions(&self) -> impl Iterator<Item = &Defined> {
        self.defined.iter().filter(|d| d.kind == Kind::Function)
    }

    /// Global data objects.
    pub fn data(&self) -> impl Iterator<Item = &Defined> {
        self.defined.iter().filter(|d| d.kind == Kind::Data)
    }

    /// Counts of `kind` per section, in file order, sections without any
    /// left out.
    pub fn by_section(&self, kind: Kind) -> Vec<(String, usize)> {
        self.section_order
            .iter()
            .map(|s| {
                let n = self
                    .defined
                    .iter()
                    .filter(|d| d.kind == kind && &d.section == s)
                    .count();
                (s.clone(), n)
            })
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// The module parameters.
    pub fn params(&self) -> Vec<Param> {
        self.modinfo.params()
    }

    /// The kind of the global symbol `name` this module defines.
    pub fn kind_of(&self, name: &str) -> Option<Kind> {
        self.defined.iter().find(|d| d.name == name).map(|d| d.kind)
    }
}

fn is_section_or_file(s: &Symbol) -> bool {
    matches!(
        object::elf::SymbolType(s.ty),
        object::elf::STT_SECTION | object::elf::STT_FILE
    )
}

fn section_name(s: Option<&Section>) -> String {
    s.map(|s| s.name.clone()).unwrap_or_else(|| "?".into())
}

/// The module name the kernel gives a file: its name up to `.ko`, with
/// dashes as underscores (kmod's `modname_normalize`).
pub fn module_name_of_file(file_name: &str) -> String {
    let base = file_name.rsplit('/').next().unwrap_or(file_name);
    let stem = match base.find(".ko") {
        Some(i) => &base[..i],
        None => base.split('.').next().unwrap_or(base),
    };
    stem.replace('-', "_")
}

/// The symbols exported by the `__ksymtab_NAME` entries of a module:
/// `EXPORT_SYMBOL` puts them in `__ksymtab`, `EXPORT_SYMBOL_GPL` in
/// `__ksymtab_gpl` (or `___ksymtab+NAME` / `___ksymtab_gpl+NAME` before the
/// final link).
fn exports(elf: &ElfView<'_>) -> Vec<Export> {
    let mut out: BTreeMap<String, bool> = BTreeMap::new();
    for s in &elf.symbols {
        let Some(name) = s.name.strip_prefix("__ksymtab_") else {
            continue;
        };
        let Place::Section(i) = s.place else {
            continue;
        };
        let Some(sec) = elf.section(i) else { continue };
        if !(sec.name.starts_with("__ksymtab") || sec.name.starts_with("___ksymtab"))
            || sec.name.starts_with("__ksymtab_strings")
            || name.is_empty()
        {
            continue;
        }
        let gpl = sec.name.contains("_gpl");
        out.insert(name.to_string(), gpl);
    }
    let kind = |n: &str| {
        elf.symbols
            .iter()
            .find(|s| s.name == n && s.place != Place::Undefined && s.is_global())
            .map(|s| {
                if s.is_function() {
                    Kind::Function
                } else {
                    Kind::Data
                }
            })
    };
    out.into_iter()
        .map(|(name, gpl_only)| Export {
            kind: kind(&name),
            name,
            gpl_only,
        })
        .collect()
}

fn signature(data: &[u8]) -> Option<Signature> {
    let body = data.strip_suffix(SIG_MAGIC)?;
    let info = body.get(body.len().checked_sub(SIG_INFO_LEN)?..)?;
    let id_type = match info[2] {
        0 => "PGP".to_string(),
        1 => "X.509".to_string(),
        2 => "PKCS#7".to_string(),
        n => format!("type {n}"),
    };
    let length = u32::from_be_bytes([info[8], info[9], info[10], info[11]]);
    Some(Signature { id_type, length })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_become_module_names() {
        assert_eq!(module_name_of_file("b43.ko"), "b43");
        assert_eq!(module_name_of_file("/x/ath9k_hw.ko.zst"), "ath9k_hw");
        assert_eq!(module_name_of_file("snd-hda-intel.ko.xz"), "snd_hda_intel");
        assert_eq!(module_name_of_file("foo"), "foo");
    }

    #[test]
    fn signature_trailer() {
        let mut d = b"\x7fELF....signature bytes".to_vec();
        d.extend_from_slice(&[0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0xba]);
        d.extend_from_slice(SIG_MAGIC);
        let s = signature(&d).unwrap();
        assert_eq!(s.id_type, "PKCS#7");
        assert_eq!(s.length, 0x1ba);
        assert!(signature(b"\x7fELF").is_none());
        assert!(signature(SIG_MAGIC).is_none());
    }
}
