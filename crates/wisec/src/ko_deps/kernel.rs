//! The kernel a module belongs to: its other modules (found under
//! `/lib/modules/VERSION`, through `modules.dep` or by walking the tree)
//! and the exports of the core kernel, from the first of these sources
//! that exists:
//!
//! 1. `Module.symvers` (written by modpost; shipped in Debian's
//!    `linux-headers-VERSION`): every export of vmlinux and of every
//!    module, GPL or not;
//! 2. `System.map` or `/proc/kallsyms`: the `__ksymtab_NAME` entries, and
//!    each symbol's type letter;
//! 3. the kernel image (`/boot/vmlinuz-VERSION` or a `vmlinux`): its
//!    `__ksymtab` sections, decoded by [`super::vmlinux`].
//!
//! Debian's image package ships `lib/modules/VERSION` without `modules.dep`
//! (depmod writes it at install time) and a placeholder
//! `/boot/System.map-VERSION` (the real one is in the `-dbg` package), so
//! on an unpacked package the third source is the one found.

use super::module::{Kind, Module};
use super::vmlinux::{self, CoreExport};
use anyhow::{anyhow, Context};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// Where the kernel's parts are, as given on the command line.
#[derive(Debug, Clone, Default)]
pub struct KernelPaths {
    /// `lib/modules/VERSION`.
    pub dir: Option<PathBuf>,
    /// A kernel image (bzImage) or an ELF vmlinux.
    pub vmlinux: Option<PathBuf>,
    /// A `System.map` or `/proc/kallsyms`.
    pub system_map: Option<PathBuf>,
    /// A `Module.symvers`.
    pub symvers: Option<PathBuf>,
}

/// What provides a symbol.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Provider {
    /// The core kernel (vmlinux).
    Kernel,
    /// A loadable module.
    Module(String),
}

/// One export as the kernel sources know it.
#[derive(Debug, Clone)]
pub struct ExportInfo {
    /// Who exports it.
    pub provider: Provider,
    /// `EXPORT_SYMBOL_GPL`, when the source says.
    pub gpl_only: Option<bool>,
    /// Function or data, when the source says.
    pub kind: Option<Kind>,
}

/// A kernel: its modules and the exports of its core.
#[derive(Debug, Default)]
pub struct Kernel {
    /// `lib/modules/VERSION`, if one was given or found.
    pub dir: Option<PathBuf>,
    /// The release (`uname -r`) of `dir`.
    pub release: Option<String>,
    /// The sources the core kernel's exports came from, in words.
    pub sources: Vec<String>,
    /// Module name → file.
    modules: BTreeMap<String, PathBuf>,
    /// Exports of the core kernel (and of modules, from `Module.symvers`
    /// or `/proc/kallsyms`).
    exports: HashMap<String, ExportInfo>,
    /// Whether any source of core exports was read.
    pub has_core: bool,
    /// What was looked for and not found, or did not fit.
    pub notes: Vec<String>,
}

impl Kernel {
    /// Opens the kernel of `module_path` (a module built for
    /// `release`): the paths given, else what can be found beside it.
    pub fn open(
        paths: &KernelPaths,
        module_path: &Path,
        release: Option<&str>,
    ) -> anyhow::Result<Kernel> {
        let mut k = Kernel::default();
        let dir = match &paths.dir {
            Some(d) => {
                if !d.is_dir() {
                    return Err(anyhow!("--kernel-dir {}: not a directory", d.display()));
                }
                Some(d.clone())
            }
            None => find_dir(module_path, release),
        };
        if let Some(d) = &dir {
            k.release = d.file_name().map(|n| n.to_string_lossy().into_owned());
            k.modules = index_modules(d)?;
            if let (Some(r), Some(m)) = (&k.release, release) {
                if r != m {
                    k.notes.push(format!(
                        "the module was built for {m}, the kernel directory is {r}"
                    ));
                }
            }
        }
        k.dir = dir;
        let explicit =
            paths.symvers.is_some() || paths.system_map.is_some() || paths.vmlinux.is_some();
        if explicit {
            if let Some(p) = &paths.symvers {
                k.read_symvers(p)?;
            }
            if let Some(p) = &paths.system_map {
                k.read_system_map(p)?;
            }
            if let Some(p) = &paths.vmlinux {
                k.read_image(p)?;
            }
        } else {
            k.find_core()?;
        }
        Ok(k)
    }

    /// A kernel made of the given exports only (for tests and callers with
    /// their own sources).
    pub fn from_exports(exports: impl IntoIterator<Item = (String, ExportInfo)>) -> Kernel {
        Kernel {
            exports: exports.into_iter().collect(),
            has_core: true,
            ..Kernel::default()
        }
    }

    /// The file of module `name` (dashes and underscores alike).
    pub fn module_path(&self, name: &str) -> Option<&Path> {
        self.modules
            .get(&name.replace('-', "_"))
            .map(PathBuf::as_path)
    }

    /// How many modules the kernel directory holds.
    pub fn module_count(&self) -> usize {
        self.modules.len()
    }

    /// Reads and parses module `name` of this kernel.
    pub fn load_module(&self, name: &str) -> anyhow::Result<Option<Module>> {
        let Some(path) = self.module_path(name) else {
            return Ok(None);
        };
        let bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
        let file = path.file_name().map(|n| n.to_string_lossy().into_owned());
        Module::parse(&bytes, file.as_deref().unwrap_or(name))
            .map(Some)
            .with_context(|| format!("{}", path.display()))
    }

    /// What the kernel's export sources say about `symbol`.
    pub fn export(&self, symbol: &str) -> Option<&ExportInfo> {
        self.exports.get(symbol)
    }

    /// Every export of the core kernel.
    pub fn core_exports(&self) -> impl Iterator<Item = (&str, &ExportInfo)> {
        self.exports
            .iter()
            .filter(|(_, e)| e.provider == Provider::Kernel)
            .map(|(n, e)| (n.as_str(), e))
    }

    fn root(&self) -> Option<PathBuf> {
        root_of(self.dir.as_deref()?)
    }

    fn find_core(&mut self) -> anyhow::Result<()> {
        let (Some(dir), Some(rel)) = (self.dir.clone(), self.release.clone()) else {
            self.notes
                .push("no kernel directory: give --kernel-dir to classify the symbols".into());
            return Ok(());
        };
        let root = self.root();
        let in_root = |p: &str| root.as_ref().map(|r| r.join(p));
        let symvers = [
            Some(dir.join("Module.symvers")),
            Some(dir.join("build/Module.symvers")),
            in_root(&format!("usr/src/linux-headers-{rel}/Module.symvers")),
        ];
        if let Some(p) = symvers.into_iter().flatten().find(|p| p.is_file()) {
            return self.read_symvers(&p);
        }
        let maps = [
            Some(dir.join("System.map")),
            Some(dir.join("build/System.map")),
            in_root(&format!("boot/System.map-{rel}")),
        ];
        // Said only when no other source is found either.
        let mut skipped = Vec::new();
        for p in maps.into_iter().flatten().filter(|p| p.is_file()) {
            match std::fs::read_to_string(&p) {
                Ok(text) if is_placeholder_map(&text) => skipped.push(format!(
                    "{}: a placeholder without symbols, not used",
                    p.display()
                )),
                Ok(text) => {
                    self.add_system_map(&text, &p)?;
                    return Ok(());
                }
                Err(e) => skipped.push(format!("{}: {e}", p.display())),
            }
        }
        let running = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| s.trim() == rel)
            .unwrap_or(false);
        if running && root.as_deref() == Some(Path::new("/")) {
            if let Ok(text) = std::fs::read_to_string("/proc/kallsyms") {
                if !text.trim().is_empty() {
                    self.add_system_map(&text, Path::new("/proc/kallsyms"))?;
                    return Ok(());
                }
            }
        }
        let images = [
            in_root(&format!("boot/vmlinuz-{rel}")),
            Some(dir.join("build/vmlinux")),
            Some(dir.join("vmlinuz")),
        ];
        if let Some(p) = images.into_iter().flatten().find(|p| p.is_file()) {
            return self.read_image(&p);
        }
        self.notes.extend(skipped);
        self.notes.push(format!(
            "no source of the core kernel's exports found for {rel} (Module.symvers, System.map, \
             vmlinuz): give --symvers, --system-map or --vmlinux"
        ));
        Ok(())
    }

    fn read_symvers(&mut self, p: &Path) -> anyhow::Result<()> {
        let text = std::fs::read_to_string(p).with_context(|| format!("{}", p.display()))?;
        let n = self
            .add_symvers(&text)
            .with_context(|| format!("{}", p.display()))?;
        self.sources
            .push(format!("{} ({n} exports of vmlinux)", p.display()));
        self.has_core = true;
        Ok(())
    }

    fn read_system_map(&mut self, p: &Path) -> anyhow::Result<()> {
        let text = std::fs::read_to_string(p).with_context(|| format!("{}", p.display()))?;
        if is_placeholder_map(&text) {
            return Err(anyhow!(
                "{}: a placeholder without symbols (Debian ships the real System.map in the \
                 linux-image-*-dbg package)",
                p.display()
            ));
        }
        self.add_system_map(&text, p)
    }

    fn add_system_map(&mut self, text: &str, p: &Path) -> anyhow::Result<()> {
        let n = self
            .add_map(text)
            .with_context(|| format!("{}", p.display()))?;
        self.sources
            .push(format!("{} ({n} exports of vmlinux)", p.display()));
        self.has_core = true;
        Ok(())
    }

    fn read_image(&mut self, p: &Path) -> anyhow::Result<()> {
        let bytes = std::fs::read(p).with_context(|| format!("{}", p.display()))?;
        let exports =
            vmlinux::exports_of_image(&bytes).with_context(|| format!("{}", p.display()))?;
        let n = exports.len();
        for (name, CoreExport { gpl_only, kind }) in exports {
            self.exports.entry(name).or_insert(ExportInfo {
                provider: Provider::Kernel,
                gpl_only: Some(gpl_only),
                kind,
            });
        }
        self.sources.push(format!(
            "{} ({n} exports of vmlinux, from its __ksymtab)",
            p.display()
        ));
        self.has_core = true;
        Ok(())
    }

    /// Adds the lines of a `Module.symvers`:
    /// `CRC<TAB>SYMBOL<TAB>MODULE<TAB>EXPORT_TYPE[<TAB>NAMESPACE]`, where
    /// MODULE is `vmlinux` or the module's path without `.ko`. Returns the
    /// number of vmlinux exports.
    pub fn add_symvers(&mut self, text: &str) -> anyhow::Result<usize> {
        let mut core = 0;
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() < 4 || !f[0].starts_with("0x") {
                return Err(anyhow!(
                    "line {}: not a Module.symvers line (CRC, symbol, module, export type)",
                    i + 1
                ));
            }
            let provider = if f[2] == "vmlinux" {
                core += 1;
                Provider::Kernel
            } else {
                Provider::Module(compress_name(f[2]))
            };
            self.exports.insert(
                f[1].to_string(),
                ExportInfo {
                    provider,
                    gpl_only: Some(f[3].contains("_GPL")),
                    kind: None,
                },
            );
        }
        if core == 0 {
            return Err(anyhow!("no export of vmlinux in it"));
        }
        Ok(core)
    }

    /// Adds a `System.map` or `/proc/kallsyms`: `ADDRESS TYPE NAME
    /// [\[MODULE\]]`. Exports are the names with a `__ksymtab_NAME` entry
    /// (every global symbol of the kernel when the map has none); the type
    /// letter of NAME tells function (`T`, `t`, `W`) from data. Returns the
    /// number of vmlinux exports.
    pub fn add_map(&mut self, text: &str) -> anyhow::Result<usize> {
        let mut kinds: HashMap<(&str, Option<&str>), Kind> = HashMap::new();
        let mut tables: Vec<(&str, Option<&str>)> = Vec::new();
        let mut globals: Vec<&str> = Vec::new();
        let mut lines = 0;
        for (i, line) in text.lines().enumerate() {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.is_empty() {
                continue;
            }
            if f.len() < 3 || f[1].len() != 1 || u64::from_str_radix(f[0], 16).is_err() {
                return Err(anyhow!(
                    "line {}: not a System.map line (address, type, name)",
                    i + 1
                ));
            }
            lines += 1;
            let module = f
                .get(3)
                .and_then(|m| m.strip_prefix('[')?.strip_suffix(']'));
            let ty = f[1].chars().next().unwrap_or('?');
            let name = f[2];
            let kind = match ty.to_ascii_lowercase() {
                't' | 'w' => Some(Kind::Function),
                'd' | 'b' | 'r' | 'g' | 's' | 'v' => Some(Kind::Data),
                _ => None,
            };
            if let Some(k) = kind {
                kinds.insert((name, module), k);
            }
            if let Some(sym) = name.strip_prefix("__ksymtab_") {
                if !sym.is_empty() && sym != "strings" {
                    tables.push((sym, module));
                }
            } else if module.is_none() && ty.is_ascii_uppercase() && ty != 'U' {
                globals.push(name);
            }
        }
        if lines == 0 {
            return Err(anyhow!("no symbols in it"));
        }
        let mut core = 0;
        let mut add = |name: &str, module: Option<&str>| {
            let provider = match module {
                None => {
                    core += 1;
                    Provider::Kernel
                }
                Some(m) => Provider::Module(m.to_string()),
            };
            self.exports.insert(
                name.to_string(),
                ExportInfo {
                    provider,
                    gpl_only: None,
                    kind: kinds.get(&(name, module)).copied(),
                },
            );
        };
        if tables.is_empty() {
            for g in globals {
                add(g, None);
            }
        } else {
            for (s, m) in tables {
                add(s, m);
            }
        }
        Ok(core)
    }
}

/// `drivers/net/wireless/ath/ath9k/ath9k` → `ath9k`.
fn compress_name(path: &str) -> String {
    super::module::module_name_of_file(path.rsplit('/').next().unwrap_or(path))
}

/// Debian's `/boot/System.map-*` says "The real System.map is in the
/// linux-image-<version>-dbg package" and nothing else.
fn is_placeholder_map(text: &str) -> bool {
    text.lines().filter(|l| !l.trim().is_empty()).count() < 2
        || text.contains("The real System.map is in")
}

/// The `/` of a tree whose modules are in `dir` = `ROOT/lib/modules/V`
/// (or `ROOT/usr/lib/modules/V`).
fn root_of(dir: &Path) -> Option<PathBuf> {
    let modules = dir.parent()?;
    if modules.file_name()? != "modules" {
        return None;
    }
    let lib = modules.parent()?;
    if lib.file_name()? != "lib" {
        return None;
    }
    let up = lib.parent()?;
    if up.file_name().is_some_and(|n| n == "usr") {
        return up.parent().map(Path::to_path_buf);
    }
    Some(up.to_path_buf())
}

/// The `lib/modules/VERSION` a module lies under, else the installed one
/// of its release.
fn find_dir(module_path: &Path, release: Option<&str>) -> Option<PathBuf> {
    let abs = std::fs::canonicalize(module_path).ok();
    for dir in abs.iter().flat_map(|p| p.ancestors().skip(1)) {
        if dir
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|n| n == "modules")
            && (dir.join("kernel").is_dir()
                || dir.join("modules.order").is_file()
                || dir.join("modules.dep").is_file())
        {
            return Some(dir.to_path_buf());
        }
    }
    let installed = Path::new("/lib/modules").join(release?);
    installed.is_dir().then_some(installed)
}

/// Module name → file, from `modules.dep` when present, else by walking
/// the tree (symbolic links such as `build` and `source` are not followed).
fn index_modules(dir: &Path) -> anyhow::Result<BTreeMap<String, PathBuf>> {
    let mut out = BTreeMap::new();
    let dep = dir.join("modules.dep");
    if let Ok(text) = std::fs::read_to_string(&dep) {
        for line in text.lines() {
            if let Some((file, _)) = line.split_once(':') {
                let p = dir.join(file.trim());
                out.entry(super::module::module_name_of_file(file.trim()))
                    .or_insert(p);
            }
        }
        if !out.is_empty() {
            return Ok(out);
        }
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = match std::fs::read_dir(&d) {
            Ok(e) => e,
            Err(e) if d == dir => {
                return Err(anyhow!("{}: {e}", d.display()));
            }
            Err(_) => continue,
        };
        for e in entries.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            let p = e.path();
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file() {
                let name = e.file_name().to_string_lossy().into_owned();
                if is_module_file(&name) {
                    out.entry(super::module::module_name_of_file(&name))
                        .or_insert(p);
                }
            }
        }
    }
    Ok(out)
}

fn is_module_file(name: &str) -> bool {
    [".ko", ".ko.xz", ".ko.zst", ".ko.gz"]
        .iter()
        .any(|s| name.ends_with(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symvers_lines() {
        let mut k = Kernel::default();
        let n = k
            .add_symvers(
                "0x92997ed8\t_printk\tvmlinux\tEXPORT_SYMBOL\t\n\
                 0xff416cc3\t__ssb_driver_register\tdrivers/ssb/ssb\tEXPORT_SYMBOL\t\n\
                 0x12345678\tdma_alloc_attrs\tvmlinux\tEXPORT_SYMBOL_GPL\t\n",
            )
            .unwrap();
        assert_eq!(n, 2);
        let p = k.export("__ssb_driver_register").unwrap();
        assert_eq!(p.provider, Provider::Module("ssb".into()));
        assert_eq!(k.export("dma_alloc_attrs").unwrap().gpl_only, Some(true));
        assert_eq!(k.export("_printk").unwrap().gpl_only, Some(false));
        assert!(k.add_symvers("hello world\n").is_err());
    }

    #[test]
    fn system_map_and_kallsyms() {
        let mut k = Kernel::default();
        let n = k
            .add_map(
                "ffffffff81000000 T _printk\n\
                 ffffffff82000000 r __ksymtab__printk\n\
                 ffffffff83000000 D jiffies\n\
                 ffffffff82000010 r __ksymtab_jiffies\n\
                 ffffffff81000100 T not_exported\n\
                 ffffffffc0000000 t ssb_bus_powerup\t[ssb]\n\
                 ffffffffc0001000 r __ksymtab_ssb_bus_powerup\t[ssb]\n",
            )
            .unwrap();
        assert_eq!(n, 2);
        assert_eq!(k.export("_printk").unwrap().kind, Some(Kind::Function));
        assert_eq!(k.export("jiffies").unwrap().kind, Some(Kind::Data));
        assert!(k.export("not_exported").is_none());
        assert_eq!(
            k.export("ssb_bus_powerup").unwrap().provider,
            Provider::Module("ssb".into())
        );
        assert!(k.add_map("The real System.map is elsewhere\n").is_err());
    }

    #[test]
    fn placeholder_maps_are_recognised() {
        assert!(is_placeholder_map(
            "ffffffffffffffff B The real System.map is in the linux-image-<version>-dbg package\n"
        ));
        assert!(!is_placeholder_map("0 T a\n0 T b\n"));
    }

    #[test]
    fn roots_of_module_dirs() {
        assert_eq!(
            root_of(Path::new("/x/y/lib/modules/6.1.0-56-amd64")),
            Some(PathBuf::from("/x/y"))
        );
        assert_eq!(
            root_of(Path::new("/usr/lib/modules/6.1")),
            Some(PathBuf::from("/"))
        );
        assert_eq!(root_of(Path::new("/tmp/k")), None);
    }
}
