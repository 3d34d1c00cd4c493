//! A plain view of an ELF file — header, section headers, symbol table —
//! read with the `object` crate's ELF reader, for both classes and both
//! byte orders. Every offset is checked against the file's length first,
//! so a truncated or corrupt file is an [`Error`], never a panic.

use super::Error;
use object::elf;
use object::read::elf::{FileHeader, SectionHeader, Sym};
use object::Endianness;

/// One section header.
#[derive(Debug, Clone)]
pub struct Section {
    /// Its name from `.shstrtab`.
    pub name: String,
    /// `sh_type`.
    pub ty: u32,
    /// `sh_flags`.
    pub flags: u64,
    /// `sh_addr`.
    pub addr: u64,
    /// `sh_offset`.
    pub offset: u64,
    /// `sh_size`.
    pub size: u64,
}

impl Section {
    /// Whether the section holds instructions (`SHF_EXECINSTR`).
    pub fn is_code(&self) -> bool {
        self.flags & elf::SHF_EXECINSTR.0 != 0
    }

    /// Whether the section occupies memory at run time (`SHF_ALLOC`).
    pub fn is_alloc(&self) -> bool {
        self.flags & elf::SHF_ALLOC.0 != 0
    }

    /// Whether the address `a` lies inside the section.
    pub fn contains(&self, a: u64) -> bool {
        a >= self.addr && a - self.addr < self.size
    }
}

/// Where a symbol is defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Undefined (`SHN_UNDEF`): provided by something else.
    Undefined,
    /// In the section of this index.
    Section(usize),
    /// An absolute value (`SHN_ABS`).
    Absolute,
    /// A common block (`SHN_COMMON`).
    Common,
    /// Another reserved index.
    Other(u16),
}

/// One symbol table entry.
#[derive(Debug, Clone)]
pub struct Symbol {
    /// Its name from the linked string table.
    pub name: String,
    /// Where it is defined.
    pub place: Place,
    /// `STB_*`.
    pub bind: u8,
    /// `STT_*`.
    pub ty: u8,
    /// `st_value`.
    pub value: u64,
    /// `st_size`.
    pub size: u64,
}

impl Symbol {
    /// Global, weak or unique binding: visible outside its object.
    pub fn is_global(&self) -> bool {
        matches!(
            elf::SymbolBind(self.bind),
            elf::STB_GLOBAL | elf::STB_WEAK | elf::STB_GNU_UNIQUE
        )
    }

    /// A function (`STT_FUNC`, `STT_GNU_IFUNC`).
    pub fn is_function(&self) -> bool {
        matches!(elf::SymbolType(self.ty), elf::STT_FUNC | elf::STT_GNU_IFUNC)
    }
}

/// An ELF file's header, sections and symbols.
#[derive(Debug)]
pub struct ElfView<'a> {
    /// The whole file.
    pub data: &'a [u8],
    /// ELFCLASS64.
    pub is_64: bool,
    /// ELFDATA2MSB.
    pub big_endian: bool,
    /// `e_type`.
    pub e_type: u16,
    /// `e_machine`.
    pub machine: u16,
    /// Every section header, index 0 included.
    pub sections: Vec<Section>,
    /// The `.symtab` entries, index 0 excluded; empty when there is none.
    pub symbols: Vec<Symbol>,
    /// Whether a `SHT_SYMTAB` section exists.
    pub has_symtab: bool,
}

impl<'a> ElfView<'a> {
    /// Reads `data`, which must start with the ELF magic.
    pub fn parse(data: &'a [u8], with_symbols: bool) -> Result<ElfView<'a>, Error> {
        if data.len() < 6 || !data.starts_with(super::compress::ELF_MAGIC) {
            return Err(Error::NotElf(super::compress::first_bytes(data)));
        }
        match data[4] {
            1 => parse_as::<elf::FileHeader32<Endianness>>(data, with_symbols),
            2 => parse_as::<elf::FileHeader64<Endianness>>(data, with_symbols),
            c => Err(Error::Malformed(format!(
                "ELF header: unknown class {c} (neither 32 nor 64 bits)"
            ))),
        }
    }

    /// The section of index `i`.
    pub fn section(&self, i: usize) -> Option<&Section> {
        self.sections.get(i)
    }

    /// The first section called `name`.
    pub fn section_by_name(&self, name: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// The file bytes of a section (empty for `SHT_NOBITS`).
    pub fn bytes(&self, s: &Section) -> &'a [u8] {
        if s.ty == elf::SHT_NOBITS.0 {
            return &[];
        }
        // Bounds were checked when the file was parsed.
        let start = s.offset as usize;
        self.data
            .get(start..start.saturating_add(s.size as usize))
            .unwrap_or(&[])
    }

    /// "ELF64 little-endian x86-64" and the like.
    pub fn describe(&self) -> String {
        format!(
            "ELF{} {}-endian {}",
            if self.is_64 { 64 } else { 32 },
            if self.big_endian { "big" } else { "little" },
            machine_name(self.machine)
        )
    }
}

/// The usual name of an `e_machine` value.
pub fn machine_name(m: u16) -> String {
    let name = match elf::Machine(m) {
        elf::EM_X86_64 => "x86-64",
        elf::EM_386 => "i386",
        elf::EM_AARCH64 => "AArch64",
        elf::EM_ARM => "ARM",
        elf::EM_RISCV => "RISC-V",
        elf::EM_PPC64 => "PowerPC64",
        elf::EM_PPC => "PowerPC",
        elf::EM_S390 => "S/390",
        elf::EM_MIPS => "MIPS",
        elf::EM_LOONGARCH => "LoongArch",
        elf::EM_SPARCV9 => "SPARC V9",
        _ => return format!("machine {m}"),
    };
    name.to_string()
}

/// `e_type` in words.
pub fn file_type_name(t: u16) -> String {
    match elf::FileType(t) {
        elf::ET_NONE => "an ELF file of no type (ET_NONE)".into(),
        elf::ET_REL => "an ELF relocatable object (ET_REL)".into(),
        elf::ET_EXEC => "an ELF executable (ET_EXEC)".into(),
        elf::ET_DYN => "an ELF shared object or position-independent executable (ET_DYN)".into(),
        elf::ET_CORE => "an ELF core dump (ET_CORE)".into(),
        _ => format!("an ELF file of type {t:#x}"),
    }
}

fn malformed(what: &str, e: object::read::Error) -> Error {
    Error::Malformed(format!("{what}: {e}"))
}

fn parse_as<'a, H: FileHeader<Endian = Endianness>>(
    data: &'a [u8],
    with_symbols: bool,
) -> Result<ElfView<'a>, Error> {
    let len = data.len() as u64;
    let hdr_len = std::mem::size_of::<H>() as u64;
    if len < hdr_len {
        return Err(Error::Truncated(format!(
            "the ELF header needs {hdr_len} bytes, the file has {len}"
        )));
    }
    let header = H::parse(data).map_err(|e| malformed("ELF header", e))?;
    let endian = header.endian().map_err(|e| malformed("ELF header", e))?;
    let e_type = header.e_type(endian).0;
    let machine = header.e_machine(endian).0;
    let shoff: u64 = header.e_shoff(endian).into();
    let shentsize = u64::from(header.e_shentsize(endian));
    let shnum = u64::from(header.e_shnum(endian));
    let view = |sections, symbols, has_symtab| ElfView {
        data,
        is_64: header.is_class_64(),
        big_endian: header.is_big_endian(),
        e_type,
        machine,
        sections,
        symbols,
        has_symtab,
    };
    if shoff == 0 {
        return Ok(view(Vec::new(), Vec::new(), false));
    }
    // The table itself (at least its first entry, which may hold the count).
    let table_end = shoff.saturating_add(shentsize.saturating_mul(shnum.max(1)));
    if table_end > len {
        return Err(Error::Truncated(format!(
            "the section header table ends at byte {table_end}, the file has {len}"
        )));
    }
    let table = header
        .sections(endian, data)
        .map_err(|e| malformed("section headers", e))?;
    let mut sections = Vec::with_capacity(table.len());
    for sh in table.iter() {
        let name = table
            .section_name(endian, sh)
            .map_err(|e| malformed("section names", e))?;
        let s = Section {
            name: String::from_utf8_lossy(name).into_owned(),
            ty: sh.sh_type(endian).0,
            flags: sh.sh_flags(endian).0,
            addr: sh.sh_addr(endian).into(),
            offset: sh.sh_offset(endian).into(),
            size: sh.sh_size(endian).into(),
        };
        if s.ty != elf::SHT_NOBITS.0 && s.ty != elf::SHT_NULL.0 {
            let end = s.offset.saturating_add(s.size);
            if end > len {
                return Err(Error::Truncated(format!(
                    "section {} (bytes {}..{}) lies beyond the end of the file ({len} bytes)",
                    if s.name.is_empty() { "?" } else { &s.name },
                    s.offset,
                    end
                )));
            }
        }
        sections.push(s);
    }
    let symtab = table
        .symbols(endian, data, elf::SHT_SYMTAB)
        .map_err(|e| malformed("symbol table", e))?;
    let has_symtab = table.iter().any(|s| s.sh_type(endian) == elf::SHT_SYMTAB);
    let mut symbols = Vec::new();
    if with_symbols {
        symbols.reserve(symtab.len().saturating_sub(1));
        for (index, sym) in symtab.enumerate().skip(1) {
            let name = symtab
                .symbol_name(endian, sym)
                .map_err(|e| malformed(&format!("symbol {}", index.0), e))?;
            let shndx = sym.st_shndx(endian);
            let place = if shndx == elf::SHN_UNDEF {
                Place::Undefined
            } else if shndx == elf::SHN_ABS {
                Place::Absolute
            } else if shndx == elf::SHN_COMMON {
                Place::Common
            } else {
                match symtab
                    .symbol_section(endian, sym, index)
                    .map_err(|e| malformed(&format!("symbol {}", index.0), e))?
                {
                    Some(i) if i.0 < sections.len() => Place::Section(i.0),
                    Some(i) => {
                        return Err(Error::Malformed(format!(
                            "symbol {} points at section {}, there are {}",
                            index.0,
                            i.0,
                            sections.len()
                        )))
                    }
                    None => Place::Other(shndx.0),
                }
            };
            symbols.push(Symbol {
                name: String::from_utf8_lossy(name).into_owned(),
                place,
                bind: sym.st_bind().0,
                ty: sym.st_type().0,
                value: sym.st_value(endian).into(),
                size: sym.st_size(endian).into(),
            });
        }
    }
    Ok(view(sections, symbols, has_symtab))
}
