//! The analysis of one module as a report: a table for people, JSON for
//! programs, DOT for Graphviz.

use super::classify::{self, Group, Resolved, VMLINUX};
use super::compress::Compression;
use super::kernel::Kernel;
use super::modinfo::Param;
use super::module::{Defined, Export, Kind, Module, Signature};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// Everything `wisec ko-deps` says about a module.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The module's name.
    pub name: String,
    /// The file read.
    pub path: String,
    /// How the file was compressed.
    pub compression: Compression,
    /// Size of the ELF file after decompression.
    pub size: usize,
    /// "ELF64 little-endian x86-64".
    pub elf: String,
    /// The appended signature.
    pub signature: Option<Signature>,
    /// Selected `.modinfo` fields.
    pub modinfo: Info,
    /// Every `.modinfo` entry, in order.
    pub modinfo_entries: Vec<(String, String)>,
    /// Module parameters.
    pub params: Vec<Param>,
    /// The counts of seed 000's dissection.
    pub counts: Counts,
    /// Global functions per section.
    pub functions_by_section: Vec<(String, usize)>,
    /// Global data objects (#EDO) per section.
    pub data_by_section: Vec<(String, usize)>,
    /// Undefined symbols per provider, largest first.
    pub providers: Vec<ProviderRow>,
    /// Core kernel services (#KSC) per area, largest first.
    pub kernel_areas: Vec<(String, usize)>,
    /// The kernel the symbols were classified against.
    pub kernel: KernelInfo,
    /// Every undefined symbol, sorted by name.
    pub undefined: Vec<Resolved>,
    /// Every global defined symbol, in symbol table order.
    pub defined: Vec<Defined>,
    /// The module's own exports.
    pub exports: Vec<Export>,
    /// What could not be found or did not fit.
    pub notes: Vec<String>,
}

/// `.modinfo` fields `modinfo` shows.
#[derive(Debug, Clone, Serialize)]
pub struct Info {
    /// `license`.
    pub license: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `author`, each.
    pub authors: Vec<String>,
    /// `version`.
    pub version: Option<String>,
    /// `srcversion`.
    pub srcversion: Option<String>,
    /// `vermagic`.
    pub vermagic: Option<String>,
    /// `depends`, split.
    pub depends: Vec<String>,
    /// `alias`, each.
    pub aliases: Vec<String>,
    /// `firmware`, each.
    pub firmware: Vec<String>,
    /// `import_ns`, each.
    pub import_ns: Vec<String>,
    /// `softdep`, each.
    pub softdeps: Vec<String>,
}

/// Seed 000's numbers for a module.
#[derive(Debug, Clone, Serialize)]
pub struct Counts {
    /// Undefined symbols (`nm -u`): the module's calls and references out.
    pub undefined: usize,
    /// Of which the core kernel provides (#KSC).
    pub ksc: usize,
    /// Of which other modules provide (#EMC).
    pub emc: usize,
    /// Of which nothing known provides.
    pub unresolved: usize,
    /// Global functions defined.
    pub functions: usize,
    /// Global data objects defined (#EDO).
    pub edo: usize,
    /// Global symbols defined: functions and data.
    pub global: usize,
    /// Symbols exported to other modules.
    pub exports: usize,
    /// Module parameters.
    pub params: usize,
}

/// One provider and how many of the module's undefined symbols it gives.
#[derive(Debug, Clone, Serialize)]
pub struct ProviderRow {
    /// `vmlinux`, a module name, or `?` for the unresolved.
    pub provider: String,
    /// `KSC`, `EMC`, or `null`.
    pub group: Option<Group>,
    /// Functions.
    pub functions: usize,
    /// Data.
    pub data: usize,
    /// Of unknown kind.
    pub unknown: usize,
    /// All of them.
    pub total: usize,
    /// Of which exported GPL-only.
    pub gpl_only: usize,
}

/// The kernel side.
#[derive(Debug, Clone, Serialize)]
pub struct KernelInfo {
    /// `lib/modules/VERSION`.
    pub dir: Option<String>,
    /// Its release.
    pub release: Option<String>,
    /// Where the core kernel's exports came from.
    pub sources: Vec<String>,
}

impl Report {
    /// Builds the report of `module`, read from `path`, against `kernel`.
    pub fn new(module: &Module, path: &Path, kernel: &Kernel) -> Report {
        let mut notes = kernel.notes.clone();
        let undefined = classify::resolve(module, kernel, &mut notes);
        let mi = &module.modinfo;
        let mut providers: BTreeMap<(Option<Group>, String), ProviderRow> = BTreeMap::new();
        for r in &undefined {
            let name = r.provider.clone().unwrap_or_else(|| "?".into());
            let row = providers
                .entry((r.group, name.clone()))
                .or_insert(ProviderRow {
                    provider: name,
                    group: r.group,
                    functions: 0,
                    data: 0,
                    unknown: 0,
                    total: 0,
                    gpl_only: 0,
                });
            match r.kind {
                Some(Kind::Function) => row.functions += 1,
                Some(Kind::Data) => row.data += 1,
                None => row.unknown += 1,
            }
            row.total += 1;
            row.gpl_only += usize::from(r.gpl_only == Some(true));
        }
        let mut providers: Vec<ProviderRow> = providers.into_values().collect();
        // vmlinux first, then modules by count, the unresolved last.
        providers.sort_by_key(|p| (p.group.is_none(), p.group, std::cmp::Reverse(p.total)));
        let mut areas: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &undefined {
            if let Some(a) = r.area {
                *areas.entry(a).or_default() += 1;
            }
        }
        let mut kernel_areas: Vec<(String, usize)> =
            areas.into_iter().map(|(a, n)| (a.to_string(), n)).collect();
        kernel_areas.sort_by_key(|(a, n)| (std::cmp::Reverse(*n), a == "other"));
        let count = |g| undefined.iter().filter(|r| r.group == Some(g)).count();
        let params = module.params();
        let functions = module.functions().count();
        let edo = module.data().count();
        let counts = Counts {
            undefined: undefined.len(),
            ksc: count(Group::Ksc),
            emc: count(Group::Emc),
            unresolved: undefined.iter().filter(|r| r.group.is_none()).count(),
            functions,
            edo,
            global: functions + edo,
            exports: module.exports.len(),
            params: params.len(),
        };
        if counts.unresolved > 0 && kernel.has_core {
            notes.push(format!(
                "{} undefined symbols are exported by nothing found (built for another kernel?)",
                counts.unresolved
            ));
        }
        Report {
            name: module.name.clone(),
            path: path.display().to_string(),
            compression: module.compression,
            size: module.size,
            elf: module.elf.clone(),
            signature: module.signature.clone(),
            modinfo: Info {
                license: mi.get("license").map(str::to_string),
                description: mi.get("description").map(str::to_string),
                authors: mi.all("author"),
                version: mi.get("version").map(str::to_string),
                srcversion: mi.get("srcversion").map(str::to_string),
                vermagic: mi.get("vermagic").map(|v| v.trim().to_string()),
                depends: mi.depends(),
                aliases: mi.all("alias"),
                firmware: mi.all("firmware"),
                import_ns: mi.all("import_ns"),
                softdeps: mi.all("softdep"),
            },
            modinfo_entries: mi.entries().to_vec(),
            params,
            counts,
            functions_by_section: module.by_section(Kind::Function),
            data_by_section: module.by_section(Kind::Data),
            providers,
            kernel_areas,
            kernel: KernelInfo {
                dir: kernel.dir.as_ref().map(|d| d.display().to_string()),
                release: kernel.release.clone(),
                sources: kernel.sources.clone(),
            },
            undefined,
            defined: module.defined.clone(),
            exports: module.exports.clone(),
            notes,
        }
    }

    /// The report as an aligned table; with `symbols`, every symbol too.
    pub fn to_text(&self, symbols: bool) -> String {
        let mut o = String::new();
        let _ = self.write_text(&mut o, symbols);
        o
    }

    fn write_text(&self, o: &mut String, symbols: bool) -> std::fmt::Result {
        let c = &self.counts;
        writeln!(o, "{}  {}", self.name, self.path)?;
        let mut what = format!("{} relocatable, {} bytes", self.elf, self.size);
        if self.compression != Compression::None {
            write!(what, " ({}-compressed)", self.compression.name())?;
        }
        if let Some(s) = &self.signature {
            write!(what, ", signed ({}, {} bytes)", s.id_type, s.length)?;
        }
        writeln!(o, "  {what}")?;
        let i = &self.modinfo;
        let mut field = |k: &str, v: String| -> std::fmt::Result {
            if v.is_empty() {
                return Ok(());
            }
            writeln!(o, "  {k:<13} {v}")
        };
        field("description", i.description.clone().unwrap_or_default())?;
        field("license", i.license.clone().unwrap_or_default())?;
        field("version", i.version.clone().unwrap_or_default())?;
        field("vermagic", i.vermagic.clone().unwrap_or_default())?;
        field(
            "depends",
            if i.depends.is_empty() {
                "(none)".into()
            } else {
                i.depends.join(", ")
            },
        )?;
        field("aliases", count_or_empty(i.aliases.len()))?;
        field("firmware", count_or_empty(i.firmware.len()))?;
        field("import_ns", i.import_ns.join(", "))?;
        field(
            "kernel",
            self.kernel
                .dir
                .clone()
                .unwrap_or_else(|| "none given or found".into()),
        )?;
        field("exports from", self.kernel.sources.join("; "))?;
        writeln!(o)?;

        let groups = if c.undefined == 0 {
            String::new()
        } else {
            let mut g = vec![format!("#KSC {}", c.ksc), format!("#EMC {}", c.emc)];
            if c.unresolved > 0 {
                g.push(format!("unresolved {}", c.unresolved));
            }
            g.join(", ")
        };
        let table = [
            ("undefined symbols", c.undefined, groups),
            (
                "global functions",
                c.functions,
                by_section(&self.functions_by_section),
            ),
            (
                "global data objects (#EDO)",
                c.edo,
                by_section(&self.data_by_section),
            ),
            ("global symbols", c.global, String::new()),
            ("exported symbols", c.exports, gpl_split(&self.exports)),
            ("module parameters", c.params, String::new()),
        ];
        writeln!(o, "{:<28} {:>6}  detail", "interface", "count")?;
        for (k, n, d) in table {
            writeln!(o, "{}", format!("{k:<28} {n:>6}  {d}").trim_end())?;
        }

        if !self.providers.is_empty() {
            writeln!(o)?;
            let w = self
                .providers
                .iter()
                .map(|p| p.provider.len())
                .max()
                .unwrap_or(8)
                .max(8);
            writeln!(
                o,
                "{:<5}  {:<w$}  {:>9}  {:>5}  {:>5}  {:>8}",
                "group", "provider", "functions", "data", "total", "GPL-only"
            )?;
            for p in &self.providers {
                let data = if p.unknown > 0 {
                    format!("{}+{}?", p.data, p.unknown)
                } else {
                    p.data.to_string()
                };
                writeln!(
                    o,
                    "{:<5}  {:<w$}  {:>9}  {:>5}  {:>5}  {:>8}",
                    p.group.map(Group::tag).unwrap_or("?"),
                    p.provider,
                    p.functions,
                    data,
                    p.total,
                    p.gpl_only
                )?;
            }
            writeln!(
                o,
                "{:<5}  {:<w$}  {:>9}  {:>5}  {:>5}",
                "",
                "total",
                self.providers.iter().map(|p| p.functions).sum::<usize>(),
                self.providers.iter().map(|p| p.data).sum::<usize>(),
                c.undefined
            )?;
        }
        if !self.kernel_areas.is_empty() {
            writeln!(o)?;
            writeln!(o, "#KSC by service area (told from the names):")?;
            let line: Vec<String> = self
                .kernel_areas
                .iter()
                .map(|(a, n)| format!("{a} {n}"))
                .collect();
            writeln!(o, "  {}", line.join(", "))?;
        }
        if !self.params.is_empty() {
            writeln!(o)?;
            let w = self
                .params
                .iter()
                .map(|p| p.name.len())
                .max()
                .unwrap_or(4)
                .max(9);
            let tw = self
                .params
                .iter()
                .map(|p| p.ty.as_deref().unwrap_or("?").len())
                .max()
                .unwrap_or(4)
                .max(4);
            writeln!(o, "{:<w$}  {:<tw$}  description", "parameter", "type")?;
            for p in &self.params {
                writeln!(
                    o,
                    "{:<w$}  {:<tw$}  {}",
                    p.name,
                    p.ty.as_deref().unwrap_or("?"),
                    p.description.as_deref().unwrap_or("")
                )?;
            }
        }
        if symbols {
            self.write_symbols(o)?;
        }
        for n in &self.notes {
            writeln!(o)?;
            write!(o, "note: {n}")?;
        }
        if !self.notes.is_empty() {
            writeln!(o)?;
        }
        Ok(())
    }

    fn write_symbols(&self, o: &mut String) -> std::fmt::Result {
        if !self.undefined.is_empty() {
            writeln!(o)?;
            let w = self
                .undefined
                .iter()
                .map(|r| r.name.len())
                .max()
                .unwrap_or(6);
            writeln!(
                o,
                "{:<w$}  {:<5}  {:<16}  {:<8}  {:<3}  area",
                "undefined", "group", "provider", "kind", "GPL"
            )?;
            for r in &self.undefined {
                writeln!(
                    o,
                    "{:<w$}  {:<5}  {:<16}  {:<8}  {:<3}  {}",
                    r.name,
                    r.group.map(Group::tag).unwrap_or("?"),
                    r.provider.as_deref().unwrap_or("?"),
                    match r.kind {
                        Some(Kind::Function) => "function",
                        Some(Kind::Data) => "data",
                        None => "?",
                    },
                    match r.gpl_only {
                        Some(true) => "yes",
                        Some(false) => "no",
                        None => "?",
                    },
                    r.area.unwrap_or("")
                )?;
            }
        }
        if !self.defined.is_empty() {
            writeln!(o)?;
            let w = self.defined.iter().map(|d| d.name.len()).max().unwrap_or(6);
            writeln!(
                o,
                "{:<w$}  {:<8}  {:<26}  {:>8}",
                "defined", "kind", "section", "size"
            )?;
            for d in &self.defined {
                writeln!(
                    o,
                    "{:<w$}  {:<8}  {:<26}  {:>8}",
                    d.name,
                    match d.kind {
                        Kind::Function => "function",
                        Kind::Data => "data",
                    },
                    d.section,
                    d.size
                )?;
            }
        }
        for (key, list) in [
            ("alias", &self.modinfo.aliases),
            ("firmware", &self.modinfo.firmware),
        ] {
            if !list.is_empty() {
                writeln!(o)?;
                for a in list {
                    writeln!(o, "{key:<9} {a}")?;
                }
            }
        }
        if !self.exports.is_empty() {
            writeln!(o)?;
            for e in &self.exports {
                writeln!(
                    o,
                    "export    {}{}",
                    e.name,
                    if e.gpl_only { "  (GPL-only)" } else { "" }
                )?;
            }
        }
        Ok(())
    }

    /// The system view as a Graphviz digraph: the module in the middle,
    /// an edge to each provider labelled with its group and count, and one
    /// to the module's own data objects (#EDO).
    pub fn to_dot(&self) -> String {
        let mut o = String::new();
        let q = dot_quote;
        let _ = writeln!(o, "digraph {} {{", q(&format!("{}.ko", self.name)));
        let _ = writeln!(o, "  rankdir=LR;");
        let _ = writeln!(o, "  node [fontname=\"DejaVu Sans\", fontsize=11];");
        let _ = writeln!(o, "  edge [fontname=\"DejaVu Sans\", fontsize=10];");
        let c = &self.counts;
        let label = format!(
            "{}.ko\\n{} undefined, {} functions, {} data, {} parameters",
            self.name, c.undefined, c.functions, c.edo, c.params
        );
        let _ = writeln!(
            o,
            "  {} [shape=box, style=\"rounded,filled\", fillcolor=\"#dbe9f6\", label={}];",
            q(&self.name),
            q_raw(&label)
        );
        for p in &self.providers {
            let id = format!("provider:{}", p.provider);
            let (shape, fill, what) = match p.group {
                Some(Group::Ksc) => ("box3d", "#fde2c8", "core kernel"),
                Some(Group::Emc) => ("box", "#d9f0d3", "module"),
                _ => ("octagon", "#eeeeee", "unresolved"),
            };
            let node = if p.provider == VMLINUX {
                format!("{}\\n({what})", p.provider)
            } else {
                format!("{}\\n{what}", p.provider)
            };
            let _ = writeln!(
                o,
                "  {} [shape={shape}, style=filled, fillcolor=\"{fill}\", label={}];",
                q(&id),
                q_raw(&node)
            );
            let _ = writeln!(
                o,
                "  {} -> {} [label={}, penwidth={:.1}];",
                q(&self.name),
                q(&id),
                q(&format!(
                    "{} {}",
                    p.group.map(Group::tag).unwrap_or("?"),
                    p.total
                )),
                pen_width(p.total)
            );
        }
        if c.edo > 0 {
            let sections: Vec<String> = self
                .data_by_section
                .iter()
                .map(|(s, n)| format!("{s} {n}"))
                .collect();
            let _ = writeln!(
                o,
                "  \"edo\" [shape=note, style=filled, fillcolor=\"#f3e6f7\", label={}];",
                q_raw(&format!("data objects\\n{}", sections.join("\\n")))
            );
            let _ = writeln!(
                o,
                "  {} -> \"edo\" [label={}, style=dashed, penwidth={:.1}];",
                q(&self.name),
                q(&format!("#EDO {}", c.edo)),
                pen_width(c.edo)
            );
        }
        let _ = writeln!(o, "}}");
        o
    }
}

/// Edge width grows with the square root of the count.
pub fn pen_width(n: usize) -> f64 {
    1.0 + (n as f64).sqrt() / 2.0
}

fn count_or_empty(n: usize) -> String {
    if n == 0 {
        String::new()
    } else {
        n.to_string()
    }
}

fn by_section(v: &[(String, usize)]) -> String {
    v.iter()
        .map(|(s, n)| format!("{s} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn gpl_split(e: &[Export]) -> String {
    let gpl = e.iter().filter(|e| e.gpl_only).count();
    if e.is_empty() {
        String::new()
    } else {
        format!("GPL-only {gpl}, any license {}", e.len() - gpl)
    }
}

/// A DOT string literal.
fn dot_quote(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for ch in s.chars() {
        match ch {
            '"' | '\\' => {
                o.push('\\');
                o.push(ch);
            }
            '\n' => o.push_str("\\n"),
            c if c.is_control() => {}
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// A DOT string literal whose `\n` escapes (line breaks in labels) are
/// kept; other quotes and backslashes are escaped.
fn q_raw(s: &str) -> String {
    let parts: Vec<String> = s
        .split("\\n")
        .map(|p| {
            let q = dot_quote(p);
            q[1..q.len() - 1].to_string()
        })
        .collect();
    format!("\"{}\"", parts.join("\\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_strings_are_escaped() {
        assert_eq!(dot_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(q_raw("x\\ny\"z"), "\"x\\ny\\\"z\"");
    }
}
