//! `wisec ko-deps` on Debian's own kernel for this release (fetched and
//! unpacked by `scripts/debian-kernel` into a cache outside the
//! repository), checked against programs that read the same files
//! independently: `nm -u`, `readelf -s`/`-S` (binutils), `modinfo` (kmod),
//! and the kernel build's own `Module.symvers` (from the headers package).

mod common;

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use wisec::ko_deps::{self, Kernel, KernelPaths, Module, Provider, Report};

/// The unpacked Debian kernel.
struct Debian {
    /// `root/lib/modules/ABI`.
    kdir: PathBuf,
    /// `root/boot/vmlinuz-ABI`.
    vmlinuz: PathBuf,
    /// `Module.symvers` of the headers package.
    symvers: PathBuf,
    /// Module name → file.
    modules: BTreeMap<String, PathBuf>,
}

fn debian() -> &'static Debian {
    static D: OnceLock<Debian> = OnceLock::new();
    D.get_or_init(|| {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/debian-kernel");
        let out = Command::new(&script)
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", script.display()));
        assert!(
            out.status.success(),
            "scripts/debian-kernel failed (it needs apt-get and the network on first use): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dir = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
        let modules_dir = dir.join("root/lib/modules");
        let abi = std::fs::read_dir(&modules_dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .next()
            .expect("a lib/modules/ABI directory");
        let kdir = modules_dir.join(&abi);
        let mut modules = BTreeMap::new();
        let mut stack = vec![kdir.join("kernel")];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if let Some(n) = p.file_name().and_then(|n| n.to_str()) {
                    if let Some(stem) = n.strip_suffix(".ko") {
                        modules.insert(stem.replace('-', "_"), p.clone());
                    }
                }
            }
        }
        Debian {
            vmlinuz: dir.join(format!("root/boot/vmlinuz-{abi}")),
            symvers: dir.join("Module.symvers"),
            kdir,
            modules,
        }
    })
}

fn module(name: &str) -> &'static Path {
    debian()
        .modules
        .get(name)
        .unwrap_or_else(|| panic!("no {name}.ko in the Debian kernel"))
}

/// The Wi-Fi drivers checked: seed 000's b43 and two more.
const DRIVERS: [&str; 3] = ["b43", "brcmsmac", "ath9k"];

fn run(cmd: &str, args: &[&str]) -> String {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{cmd}: {e} (scripts/prereqs.sh installs it)"));
    assert!(
        out.status.success(),
        "{cmd} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn ko_deps_json(args: &[&str]) -> Value {
    common::json(&[&["ko-deps"], args].concat())
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

/// Section index → name, from `readelf -S --wide`.
fn readelf_sections(file: &Path) -> BTreeMap<String, String> {
    run("readelf", &["-S", "--wide", s(file)])
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let rest = l.strip_prefix('[')?;
            let (n, rest) = rest.split_once(']')?;
            let n = n.trim();
            n.parse::<usize>().ok()?;
            let name = rest.split_whitespace().next()?;
            // Section 0 has no name: its next word is the type NULL.
            Some((
                n.to_string(),
                if n == "0" {
                    String::new()
                } else {
                    name.to_string()
                },
            ))
        })
        .collect()
}

/// (name, function?, section) of every global defined symbol, from
/// `readelf -s --wide`.
fn readelf_globals(file: &Path) -> BTreeSet<(String, bool, String)> {
    let sections = readelf_sections(file);
    let mut out = BTreeSet::new();
    for l in run("readelf", &["-s", "--wide", s(file)]).lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        // Num: Value Size Type Bind Vis Ndx Name
        if f.len() < 8 || !f[0].ends_with(':') || f[0] == "Num:" {
            continue;
        }
        let (ty, bind, ndx, name) = (f[3], f[4], f[6], f[7]);
        if !matches!(bind, "GLOBAL" | "WEAK" | "UNIQUE")
            || ndx == "UND"
            || matches!(ty, "SECTION" | "FILE")
        {
            continue;
        }
        let section = match ndx {
            "ABS" => "*ABS*".to_string(),
            "COM" => "*COM*".to_string(),
            n => sections[n].clone(),
        };
        out.insert((name.to_string(), matches!(ty, "FUNC" | "IFUNC"), section));
    }
    out
}

fn nm_undefined(file: &Path) -> BTreeSet<String> {
    run("nm", &["-u", s(file)])
        .lines()
        .filter_map(|l| l.split_whitespace().last().map(str::to_string))
        .collect()
}

/// kmod's modinfo, which Debian installs in /usr/sbin (not always on a
/// user's PATH).
fn modinfo_program() -> &'static str {
    ["/usr/sbin/modinfo", "/sbin/modinfo"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .unwrap_or("modinfo")
}

fn modinfo(field: &str, file: &Path) -> Vec<String> {
    run(modinfo_program(), &["-F", field, s(file)])
        .lines()
        .map(|l| l.trim_end().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// `Module.symvers`: symbol → (module, GPL-only).
fn symvers() -> &'static BTreeMap<String, (String, bool)> {
    static S: OnceLock<BTreeMap<String, (String, bool)>> = OnceLock::new();
    S.get_or_init(|| {
        std::fs::read_to_string(&debian().symvers)
            .unwrap()
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                let module = f[2].rsplit('/').next().unwrap().replace('-', "_");
                (f[1].to_string(), (module, f[3].ends_with("_GPL")))
            })
            .collect()
    })
}

#[test]
fn symbols_sections_and_modinfo_match_binutils_and_kmod() {
    for name in DRIVERS {
        let file = module(name);
        let j = ko_deps_json(&[s(file)]);
        // Undefined symbols: nm -u.
        let ours: BTreeSet<String> = j["undefined"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["name"].as_str().unwrap().to_string())
            .collect();
        let nm = nm_undefined(file);
        assert_eq!(ours, nm, "{name}: undefined symbols");
        assert_eq!(j["counts"]["undefined"], nm.len(), "{name}");
        // Global functions and data, each with its section: readelf -s.
        let ours: BTreeSet<(String, bool, String)> = j["defined"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["name"].as_str().unwrap().to_string(),
                    d["kind"] == "function",
                    d["section"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let re = readelf_globals(file);
        assert_eq!(ours, re, "{name}: global symbols");
        let functions = re.iter().filter(|g| g.1).count();
        assert_eq!(j["counts"]["functions"], functions, "{name}");
        assert_eq!(j["counts"]["edo"], re.len() - functions, "{name}");
        assert_eq!(j["counts"]["global"], re.len(), "{name}");
        let mut per_section: BTreeMap<String, usize> = BTreeMap::new();
        for g in re.iter().filter(|g| !g.1) {
            *per_section.entry(g.2.clone()).or_default() += 1;
        }
        let ours: BTreeMap<String, usize> = j["data_by_section"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p[0].as_str().unwrap().to_string(),
                    p[1].as_u64().unwrap() as usize,
                )
            })
            .collect();
        assert_eq!(ours, per_section, "{name}: #EDO by section");
        // .modinfo: modinfo -F.
        let mi = &j["modinfo"];
        assert_eq!(
            mi["license"].as_str().map(str::to_string),
            modinfo("license", file).pop(),
            "{name}"
        );
        assert_eq!(
            mi["vermagic"].as_str().map(str::to_string),
            modinfo("vermagic", file)
                .pop()
                .map(|v| v.trim().to_string()),
            "{name}"
        );
        let depends: Vec<String> = modinfo("depends", file)
            .first()
            .map(|d| d.split(',').map(str::to_string).collect())
            .unwrap_or_default();
        assert_eq!(strings(&mi["depends"]), depends, "{name}");
        for (field, key) in [
            ("alias", "aliases"),
            ("firmware", "firmware"),
            ("author", "authors"),
        ] {
            let want: BTreeSet<String> = modinfo(field, file).into_iter().collect();
            let got: BTreeSet<String> = strings(&mi[key]).into_iter().collect();
            assert_eq!(got, want, "{name}: {field}");
        }
        // Parameters as kmod prints them: NAME:DESCRIPTION (TYPE).
        let params: BTreeSet<String> = j["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let mut l = format!(
                    "{}:{}",
                    p["name"].as_str().unwrap(),
                    p["description"].as_str().unwrap_or("")
                );
                if let Some(t) = p["type"].as_str() {
                    l += &format!(" ({t})");
                }
                l
            })
            .collect();
        let want: BTreeSet<String> = modinfo("parm", file).into_iter().collect();
        assert_eq!(params, want, "{name}: parameters");
        assert_eq!(j["counts"]["params"], want.len(), "{name}");
        assert_eq!(
            j["signature"]["id_type"].as_str(),
            modinfo("sig_id", file).first().map(String::as_str),
            "{name}"
        );
    }
}

#[test]
fn providers_match_module_symvers_and_depends() {
    let sv = symvers();
    for name in DRIVERS {
        let file = module(name);
        let j = ko_deps_json(&[s(file)]);
        let mut emc = BTreeSet::new();
        for u in j["undefined"].as_array().unwrap() {
            let sym = u["name"].as_str().unwrap();
            let (module, gpl) = sv
                .get(sym)
                .unwrap_or_else(|| panic!("{name}: {sym} is not in Module.symvers"));
            assert_eq!(
                u["provider"].as_str(),
                Some(module.as_str()),
                "{name}: {sym}"
            );
            let group = if module == "vmlinux" { "KSC" } else { "EMC" };
            assert_eq!(u["group"], group, "{name}: {sym}");
            assert_eq!(u["gpl_only"], *gpl, "{name}: {sym} GPL-only");
            if module != "vmlinux" {
                emc.insert(module.clone());
            }
        }
        // modpost wrote depends= from the same resolution.
        let depends: BTreeSet<String> = strings(&j["modinfo"]["depends"]).into_iter().collect();
        assert_eq!(emc, depends, "{name}: providers and depends=");
        let c = &j["counts"];
        assert_eq!(c["unresolved"], 0, "{name}");
        assert_eq!(
            c["ksc"].as_u64().unwrap() + c["emc"].as_u64().unwrap(),
            c["undefined"].as_u64().unwrap()
        );
        // Provider rows add up to the per-symbol classification.
        let rows: u64 = j["providers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["total"].as_u64().unwrap())
            .sum();
        assert_eq!(rows, c["undefined"].as_u64().unwrap());
    }
}

#[test]
fn kinds_of_module_exports_match_nm_of_the_provider() {
    let j = ko_deps_json(&[s(module("ath9k"))]);
    let mut nm_of: BTreeMap<String, BTreeMap<String, char>> = BTreeMap::new();
    let mut checked = 0;
    for u in j["undefined"].as_array().unwrap() {
        if u["group"] != "EMC" {
            continue;
        }
        let provider = u["provider"].as_str().unwrap();
        let table = nm_of.entry(provider.to_string()).or_insert_with(|| {
            run("nm", &[s(module(provider))])
                .lines()
                .filter_map(|l| {
                    let f: Vec<&str> = l.split_whitespace().collect();
                    (f.len() == 3).then(|| (f[2].to_string(), f[1].chars().next().unwrap()))
                })
                .collect()
        });
        let sym = u["name"].as_str().unwrap();
        let letter = table[sym];
        let want = if letter.eq_ignore_ascii_case(&'t') {
            "function"
        } else {
            "data"
        };
        assert_eq!(u["kind"], want, "{sym} ({letter} in {provider})");
        checked += 1;
    }
    assert!(checked > 100, "ath9k has {checked} external module calls");
}

#[test]
fn core_exports_from_vmlinuz_match_module_symvers() {
    let d = debian();
    let k = Kernel::open(
        &KernelPaths {
            vmlinux: Some(d.vmlinuz.clone()),
            ..KernelPaths::default()
        },
        Path::new("/nonexistent.ko"),
        None,
    )
    .unwrap();
    let ours: BTreeMap<String, bool> = k
        .core_exports()
        .map(|(n, e)| (n.to_string(), e.gpl_only.unwrap()))
        .collect();
    let want: BTreeMap<String, bool> = symvers()
        .iter()
        .filter(|(_, (m, _))| m == "vmlinux")
        .map(|(n, (_, g))| (n.clone(), *g))
        .collect();
    assert!(want.len() > 5000, "{} vmlinux exports", want.len());
    assert_eq!(ours.len(), want.len());
    assert_eq!(ours, want);
    // Kinds, from the section each address lies in, for symbols the
    // kernel sources define as variables or as functions.
    for (sym, kind) in [
        ("jiffies", "data"),
        ("kmalloc_caches", "data"),
        ("system_wq", "data"),
        ("__preempt_count", "data"),
        ("param_ops_int", "data"),
        ("byte_rev_table", "data"),
        ("page_offset_base", "data"),
        ("_printk", "function"),
        ("kfree", "function"),
        ("dma_alloc_attrs", "function"),
        ("__x86_indirect_thunk_rax", "function"),
    ] {
        let e = k.export(sym).unwrap();
        let got = match e.kind {
            Some(ko_deps::Kind::Function) => "function",
            Some(ko_deps::Kind::Data) => "data",
            None => "?",
        };
        assert_eq!(got, kind, "{sym}");
        assert_eq!(e.provider, Provider::Kernel);
    }
}

/// The classification of each undefined symbol: name → (provider, group).
fn classification(j: &Value) -> BTreeMap<String, (Value, Value)> {
    j["undefined"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["name"].as_str().unwrap().to_string(),
                (u["provider"].clone(), u["group"].clone()),
            )
        })
        .collect()
}

#[test]
fn every_source_of_exports_gives_the_same_classification() {
    let d = debian();
    let file = module("brcmsmac");
    let found = ko_deps_json(&[s(file)]);
    let with_symvers = ko_deps_json(&[
        s(file),
        "--kernel-dir",
        s(&d.kdir),
        "--symvers",
        s(&d.symvers),
    ]);
    let with_image = ko_deps_json(&[s(file), "--vmlinux", s(&d.vmlinuz)]);
    assert!(strings(&with_symvers["kernel"]["sources"])[0].contains("Module.symvers"));
    assert!(strings(&found["kernel"]["sources"])[0].contains("vmlinuz"));
    assert_eq!(classification(&found), classification(&with_symvers));
    assert_eq!(classification(&found), classification(&with_image));
    // Without a kernel nothing is classified, and the report says so.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("brcmsmac.ko");
    std::fs::copy(file, &copy).unwrap();
    let alone = ko_deps_json(&[s(&copy)]);
    if alone["kernel"]["dir"].is_null() {
        assert_eq!(alone["counts"]["unresolved"], alone["counts"]["undefined"]);
        assert!(strings(&alone["notes"])
            .iter()
            .any(|n| n.contains("--kernel-dir")));
    }
}

/// The report without what depends on the file's name and packing.
fn comparable(mut j: Value) -> Value {
    for k in ["path", "compression"] {
        j.as_object_mut().unwrap().remove(k);
    }
    j
}

fn compress_with(tool: &[&str], input: &Path, output: &Path) {
    let out = Command::new(tool[0])
        .args(&tool[1..])
        .arg(input)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e} (scripts/prereqs.sh installs it)", tool[0]));
    assert!(out.status.success(), "{tool:?}");
    std::fs::write(output, out.stdout).unwrap();
}

#[test]
fn compressed_modules_and_kernel_trees_give_the_same_report() {
    let d = debian();
    let file = module("b43");
    let kdir = ["--kernel-dir", s(&d.kdir)];
    let plain = ko_deps_json(&[&[s(file)][..], &kdir].concat());
    assert_eq!(plain["compression"], "none");
    let dir = tempfile::tempdir().unwrap();
    for (tool, ext, name) in [
        (&["xz", "-c", "--check=crc32"][..], "ko.xz", "xz"),
        (&["zstd", "-c", "-q"][..], "ko.zst", "zstd"),
        (&["gzip", "-c", "-n"][..], "ko.gz", "gzip"),
    ] {
        let packed = dir.path().join(format!("b43.{ext}"));
        compress_with(tool, file, &packed);
        let j = ko_deps_json(&[&[s(&packed)][..], &kdir].concat());
        assert_eq!(j["compression"], name);
        assert_eq!(comparable(j), comparable(plain.clone()), "{ext}");
    }
    // The content decides, not the name: zstd data called .ko.xz.
    let misnamed = dir.path().join("b43-misnamed.ko.xz");
    std::fs::copy(dir.path().join("b43.ko.zst"), &misnamed).unwrap();
    let j = ko_deps_json(&[&[s(&misnamed)][..], &kdir].concat());
    assert_eq!(j["compression"], "zstd");
    assert_eq!(classification(&j), classification(&plain));

    // A kernel tree whose modules are compressed three ways, found from
    // the module's own place in it; only the dependencies are read.
    let tree = dir.path().join("lib/modules/test-kernel");
    let drivers = tree.join("kernel/drivers");
    std::fs::create_dir_all(&drivers).unwrap();
    let tools: [&[&str]; 3] = [&["xz", "-c"], &["zstd", "-c", "-q"], &["gzip", "-c"]];
    let exts = ["ko.xz", "ko.zst", "ko.gz"];
    for (i, dep) in strings(&plain["modinfo"]["depends"]).iter().enumerate() {
        let dst = drivers.join(format!("{dep}.{}", exts[i % 3]));
        compress_with(tools[i % 3], module(dep), &dst);
    }
    let here = drivers.join("b43.ko.xz");
    compress_with(&["xz", "-c"], file, &here);
    let j = ko_deps_json(&[s(&here), "--vmlinux", s(&d.vmlinuz)]);
    assert_eq!(j["kernel"]["dir"].as_str(), Some(s(&tree)));
    assert_eq!(classification(&j), classification(&plain));
    assert!(strings(&j["notes"]).iter().any(|n| n.contains("built for")));
}

fn png_size(b: &[u8]) -> (u32, u32) {
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&b[12..16], b"IHDR");
    (
        u32::from_be_bytes([b[16], b[17], b[18], b[19]]),
        u32::from_be_bytes([b[20], b[21], b[22], b[23]]),
    )
}

#[test]
fn graph_outputs_dot_and_png() {
    let file = module("b43");
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("b43.png");
    let dot = dir.path().join("b43.dot");
    let j = ko_deps_json(&[s(file), "--png", s(&png), "--dot", s(&dot)]);
    assert_eq!(
        png_size(&std::fs::read(&png).unwrap()),
        (ko_deps::graph::WIDTH, ko_deps::graph::HEIGHT)
    );
    let text = std::fs::read_to_string(&dot).unwrap();
    assert!(text.starts_with("digraph \"b43.ko\" {"));
    // One edge per provider, labelled with its group and count, and #EDO.
    for p in j["providers"].as_array().unwrap() {
        let edge = format!(
            "\"b43\" -> \"provider:{}\" [label=\"#{} {}\"",
            p["provider"].as_str().unwrap(),
            p["group"].as_str().unwrap(),
            p["total"]
        );
        assert!(text.contains(&edge), "{edge}");
    }
    assert!(text.contains(&format!("[label=\"#EDO {}\"", j["counts"]["edo"])));
    assert_eq!(
        text.matches(" -> ").count(),
        j["providers"].as_array().unwrap().len() + 1
    );
    // --dot - prints the graph only.
    assert_eq!(common::ok(&["ko-deps", s(file), "--dot", "-"]), text);

    // An existing file is kept without --force, replaced with it.
    std::fs::write(&dot, "mine").unwrap();
    let out = common::wisec(&["ko-deps", s(file), "--dot", s(&dot)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    assert_eq!(std::fs::read_to_string(&dot).unwrap(), "mine");
    common::ok(&["ko-deps", s(file), "--dot", s(&dot), "--force"]);
    assert_eq!(std::fs::read_to_string(&dot).unwrap(), text);
    // A named pipe gets the graph written into it, and stays a pipe.
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let fifo = dir.path().join("graph.dot");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let path = fifo.clone();
        let reader = std::thread::spawn(move || std::fs::read_to_string(path).unwrap());
        common::ok(&["ko-deps", s(file), "--dot", s(&fifo)]);
        assert_eq!(reader.join().unwrap(), text);
        let t = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(t.is_fifo(), "the named pipe was replaced");
    }
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".wisec-"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

#[test]
fn table_output_names_the_groups() {
    let t = common::ok(&["ko-deps", s(module("b43"))]);
    let j = ko_deps_json(&[s(module("b43"))]);
    let c = &j["counts"];
    let line = |k: &str| {
        t.lines()
            .find(|l| l.starts_with(k))
            .unwrap_or_else(|| panic!("no '{k}' line in:\n{t}"))
            .to_string()
    };
    assert!(line("undefined symbols").contains(&format!(
        "{}  #KSC {}, #EMC {}",
        c["undefined"], c["ksc"], c["emc"]
    )));
    assert!(line("global functions").contains(&c["functions"].to_string()));
    assert!(line("global data objects (#EDO)").contains(&c["edo"].to_string()));
    assert!(line("#KSC   vmlinux").contains(&c["ksc"].to_string()));
    assert!(line("bad_frames_preempt").contains("int"));
    let listed = common::ok(&["ko-deps", s(module("b43")), "--symbols"]);
    assert!(listed.contains("ssb_bus_powerup"));
    assert!(listed.lines().any(|l| l.starts_with("alias ")));
}

#[test]
fn usage_errors_exit_2() {
    let file = module("cordic");
    for args in [
        vec!["ko-deps"],
        vec!["ko-deps", s(file), "--dot", "-", "--json"],
        vec!["ko-deps", s(file), "--png", "-"],
        vec!["ko-deps", s(file), "--dot", "x.out", "--png", "x.out"],
    ] {
        let out = common::wisec(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

/// Runs ko-deps on `file` and expects one clear error naming it.
fn refused(file: &Path, words: &str) {
    let out = common::wisec(&["ko-deps", s(file)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{}: {err}", file.display());
    assert!(out.stdout.is_empty());
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("wisec: error: "), "{err}");
    assert!(err.contains(s(file)), "names the file: {err}");
    assert!(err.contains(words), "'{words}' in: {err}");
}

#[test]
fn bad_input_gets_one_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    let b43 = std::fs::read(module("b43")).unwrap();

    std::fs::write(
        p("notes.txt"),
        "these are not the symbols you are looking for\n",
    )
    .unwrap();
    refused(&p("notes.txt"), "not an ELF file");
    std::fs::write(p("empty.ko"), "").unwrap();
    refused(&p("empty.ko"), "empty file");
    refused(&p("missing.ko"), "No such file");
    refused(dir.path(), "is a directory");
    // ELF files that are not relocatable: an executable of this system.
    refused(
        Path::new("/bin/true"),
        "not a kernel module (an ELF relocatable",
    );
    // Truncated: inside the header, the sections, the section headers.
    for (n, len) in [
        ("head.ko", 40),
        ("half.ko", b43.len() / 2),
        ("end.ko", b43.len() - 2000),
    ] {
        std::fs::write(p(n), &b43[..len]).unwrap();
        refused(&p(n), "truncated");
    }
    // Stripped of its symbol table by binutils' strip.
    std::fs::copy(module("b43"), p("stripped.ko")).unwrap();
    run("strip", &[s(&p("stripped.ko"))]);
    refused(&p("stripped.ko"), "stripped");
    // A compression kernels do not use, and garbage after an xz magic.
    compress_with(&["bzip2", "-c"], module("b43"), &p("b43.ko.bz2"));
    refused(&p("b43.ko.bz2"), "compressed with bzip2");
    let mut xz = b"\xfd7zXZ\x00".to_vec();
    xz.extend_from_slice(&[0x55; 64]);
    std::fs::write(p("bad.ko.xz"), xz).unwrap();
    refused(&p("bad.ko.xz"), "corrupt or truncated xz data");
    // A truncated compressed module.
    compress_with(&["zstd", "-c", "-q"], module("b43"), &p("b43.ko.zst"));
    let z = std::fs::read(p("b43.ko.zst")).unwrap();
    std::fs::write(p("cut.ko.zst"), &z[..z.len() / 3]).unwrap();
    refused(&p("cut.ko.zst"), "zstd");
    // An object file that modpost never made a module of.
    let obj = p("plain.o");
    let status = Command::new("cc")
        .args(["-c", "-x", "c", "-", "-o", s(&obj)])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin
                .take()
                .unwrap()
                .write_all(b"int f(void) { return 1; }\n")?;
            c.wait()
        });
    assert!(status.is_ok_and(|s| s.success()), "cc -c");
    refused(&obj, "not a kernel module");
}

/// A small deterministic generator (xorshift64*) for the mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Parses `data` and, when it is a module, builds its report: must not
/// panic, whatever the bytes.
fn parse_and_report(data: &[u8], kernel: &Kernel) -> Result<Report, ko_deps::Error> {
    let m = Module::parse(data, "fuzz.ko")?;
    let r = Report::new(&m, Path::new("fuzz.ko"), kernel);
    let _ = r.to_text(true);
    let _ = r.to_dot();
    Ok(r)
}

#[test]
fn truncated_and_mutated_modules_never_panic() {
    let kernel = Kernel::from_exports(symvers().iter().map(|(n, (m, g))| {
        let provider = if m == "vmlinux" {
            Provider::Kernel
        } else {
            Provider::Module(m.clone())
        };
        (
            n.clone(),
            ko_deps::kernel::ExportInfo {
                provider,
                gpl_only: Some(*g),
                kind: None,
            },
        )
    }));
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut accepted, mut rejected) = (0, 0);
    for name in ["cordic", "rfkill", "b43"] {
        let data = std::fs::read(module(name)).unwrap();
        let whole = parse_and_report(&data, &kernel).unwrap();
        assert_eq!(whole.counts.unresolved, 0, "{name}");
        // The ELF part ends with the section header table (the signature
        // follows it): every cut before its end must be refused.
        let elf_end = {
            let shoff = u64::from_le_bytes(data[0x28..0x30].try_into().unwrap()) as usize;
            let shnum = u16::from_le_bytes([data[0x3c], data[0x3d]]) as usize;
            shoff + shnum * 64
        };
        for i in 0..150 {
            let cut = rng.below(elf_end);
            let cut = if i == 0 { elf_end - 1 } else { cut };
            let r = std::panic::catch_unwind(|| parse_and_report(&data[..cut], &kernel).is_err());
            assert_eq!(r.ok(), Some(true), "{name} cut at {cut} was not refused");
        }
        let rounds = if name == "b43" { 150 } else { 400 };
        for _ in 0..rounds {
            let mut m = data.clone();
            // Flip 1 to 8 bits, mostly in the ELF and section headers and
            // the tables they point to.
            for _ in 0..1 + rng.below(8) {
                let at = if rng.below(2) == 0 {
                    elf_end - 1 - rng.below(elf_end.min(4096))
                } else if rng.below(2) == 0 {
                    rng.below(64)
                } else {
                    rng.below(m.len())
                };
                m[at] ^= 1 << rng.below(8);
            }
            let r = std::panic::catch_unwind(|| parse_and_report(&m, &kernel).is_ok());
            match r {
                Ok(true) => accepted += 1,
                Ok(false) => rejected += 1,
                Err(_) => panic!("{name}: a mutation made the parser panic"),
            }
        }
    }
    // Compressed inputs, cut and flipped.
    let packed = {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("c.xz");
        compress_with(&["xz", "-c"], module("cordic"), &out);
        std::fs::read(out).unwrap()
    };
    for i in 0..200 {
        let mut m = packed.clone();
        if i % 2 == 0 {
            m.truncate(rng.below(packed.len()));
            assert!(parse_and_report(&m, &kernel).is_err());
        } else {
            let at = rng.below(m.len());
            m[at] ^= 1 << rng.below(8);
            let _ = parse_and_report(&m, &kernel);
        }
    }
    // The mutations reach both outcomes: some flips hit bytes that do not
    // matter, others break a header or table.
    assert!(
        accepted > 50 && rejected > 50,
        "{accepted} accepted, {rejected} refused"
    );
}

#[test]
fn csv_tables_are_the_json_tables() {
    let file = module("ath9k");
    let j = ko_deps_json(&[s(file)]);
    for (table, field) in [
        ("providers", "providers"),
        ("undefined", "undefined"),
        ("params", "params"),
    ] {
        let csv = common::ok(&["ko-deps", s(file), "--csv", table]);
        let rows = j[field].as_array().unwrap();
        assert!(!rows.is_empty(), "{table}");
        common::csv::compare(&csv, rows, None);
    }
}
