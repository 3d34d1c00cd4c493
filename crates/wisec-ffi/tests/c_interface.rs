//! The C interface as a C programmer gets it: `include/wisec.h` must be
//! what cbindgen generates from this crate (so the declarations match the
//! code), and a C program compiled by gcc against the header and
//! `libwisec_ffi.a` — the hosted library with Rust's std, and the `no_std`
//! one built with panic=abort for machines with no operating system — runs
//! RFC 3610 and SP 800-38C CCM vectors and IEEE 802.11 CCMP-128/256
//! vectors (from wisec-crypto's vector files) through it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn root() -> PathBuf {
    manifest().join("../..")
}

#[test]
fn the_committed_header_is_what_cbindgen_generates_from_the_code() {
    let config = cbindgen::Config::from_file(manifest().join("cbindgen.toml")).unwrap();
    let mut out = Vec::new();
    cbindgen::Builder::new()
        .with_crate(manifest())
        .with_config(config)
        .generate()
        .expect("cbindgen")
        .write(&mut out);
    let generated = String::from_utf8(out).unwrap();
    let path = root().join("include/wisec.h");
    if std::env::var_os("WISEC_BLESS_HEADER").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/wisec.h differs from the code's declarations; regenerate it with \
         WISEC_BLESS_HEADER=1 cargo test -p wisec-ffi --test c_interface"
    );
    for f in [
        "wisec_ccm_init",
        "wisec_ccm_encrypt",
        "wisec_ccm_decrypt",
        "wisec_ccm_wipe",
        "wisec_ccmp_init",
        "wisec_ccmp_protect",
        "wisec_ccmp_unprotect",
        "wisec_ccmp_wipe",
        "wisec_version",
    ] {
        assert!(generated.contains(&format!("{f}(")), "{f}");
    }
}

fn vectors_file(dir: &Path) -> PathBuf {
    let vdir = root().join("crates/wisec-crypto/tests/vectors");
    let ccm: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(vdir.join("ccm_rfc3610_sp800_38c.json")).unwrap(),
    )
    .unwrap();
    let ieee: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(vdir.join("ieee80211_vectors.json")).unwrap(),
    )
    .unwrap();
    let f = |v: &serde_json::Value, k: &str| match v[k].as_str() {
        Some("") | None => "-".to_string(),
        Some(s) => s.to_string(),
    };
    let mut text = String::new();
    let mut n = 0;
    for v in ccm["vectors"].as_array().unwrap() {
        // SP 800-38C C.4 has a 65536-octet pattern AAD, not listed as hex.
        if v.get("aad_pattern_len").is_some() {
            continue;
        }
        n += 1;
        text.push_str(&format!(
            "ccm {} {} {} {} {} {} {} {} {}\n",
            v["name"].as_str().unwrap().replace(' ', "_"),
            f(v, "key"),
            f(v, "nonce"),
            f(v, "aad"),
            f(v, "plaintext"),
            f(v, "ciphertext"),
            f(v, "tag"),
            v["tag_len"],
            v["l"]
        ));
    }
    assert!(n >= 30, "{n} CCM vectors");
    for (name, key) in [
        ("CCMP-128_M.6.4", "ccmp128_M64"),
        ("CCMP-256_802.11ac", "ccmp256"),
    ] {
        let v = &ieee[key];
        // The vectors give the header as transmitted (Protected Frame bit
        // set); the plaintext MPDU has it clear.
        let mut plain = hex::decode(v["plaintext_mpdu"].as_str().unwrap()).unwrap();
        plain[1] &= !0x40;
        text.push_str(&format!(
            "ccmp {name} {} {} {} {}\n",
            f(v, "tk"),
            f(v, "pn_be"),
            hex::encode(plain),
            f(v, "expected_mpdu_no_fcs")
        ));
    }
    let path = dir.join("vectors.txt");
    std::fs::write(&path, text).unwrap();
    path
}

fn compile_and_run(lib: &Path, extra_libs: &[&str], tag: &str) -> String {
    assert!(lib.is_file(), "{}: missing", lib.display());
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("wisec-ffi-{tag}"));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("vectors");
    let out = Command::new("gcc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", "-I"])
        .arg(root().join("include"))
        .arg(manifest().join("tests/c/vectors.c"))
        .arg(lib)
        .args(extra_libs)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("gcc (scripts/prereqs.sh installs it)");
    assert!(
        out.status.success(),
        "gcc: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).arg(vectors_file(&dir)).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(!stdout.contains("FAIL"), "{stdout}");
    assert!(stdout.contains(" vectors passed, 0 failed"), "{stdout}");
    stdout
}

/// Runs cargo on this workspace with its own target directory (the outer
/// test run holds the lock of the usual one).
fn cargo(args: &[&str], target: &Path, rustflags: Option<&str>) {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root())
        .args(args)
        .arg("--target-dir")
        .arg(target)
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTFLAGS");
    if let Some(f) = rustflags {
        c.env("RUSTFLAGS", f);
    }
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "cargo {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_c_program_runs_the_vectors_through_the_hosted_static_library() {
    let target = root().join("target/ffi");
    cargo(&["build", "-p", "wisec-ffi", "--release"], &target, None);
    let lib = target.join("release/libwisec_ffi.a");
    let out = compile_and_run(&lib, &["-lpthread", "-ldl", "-lm"], "std");
    assert!(out.contains("ok   ccmp CCMP-128_M.6.4"), "{out}");
    assert!(out.contains("ok   ccm RFC_3610_Packet_Vector_#24"), "{out}");
}

#[test]
fn a_c_program_runs_the_vectors_through_the_no_std_static_library() {
    let target = root().join("target/ffi");
    cargo(
        &[
            "rustc",
            "-p",
            "wisec-ffi",
            "--release",
            "--lib",
            "--crate-type",
            "staticlib",
            "--no-default-features",
            "--target",
            "x86_64-unknown-linux-gnu",
        ],
        &target,
        Some("-C panic=abort"),
    );
    let lib = target.join("x86_64-unknown-linux-gnu/release/libwisec_ffi.a");
    // Linked with nothing but the C library (memcpy, memset, ...) and
    // libgcc: any Rust runtime it needed would be an undefined symbol.
    compile_and_run(&lib, &[], "nostd");
}
