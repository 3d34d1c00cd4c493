//! Compiles the ipsec-mb shim when Intel's ipsec-mb header is installed and
//! links `libIPSec_MB`; otherwise records why the peer is missing, so that
//! the benchmark can say so instead of skipping it.

use std::env;
use std::path::PathBuf;

const HEADER: &str = "intel-ipsec-mb.h";

fn include_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = env::var_os("IPSEC_MB_INCLUDE_DIR") {
        dirs.push(PathBuf::from(d));
    }
    dirs.push(PathBuf::from("/usr/include"));
    dirs.push(PathBuf::from("/usr/local/include"));
    dirs
}

fn missing(reason: &str) {
    println!("cargo:rustc-env=WISEC_IPSEC_MB_MISSING={reason}");
    println!("cargo:warning=ipsec-mb peer disabled: {reason}");
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(wisec_ipsec_mb)");
    println!("cargo:rerun-if-changed=shim/ipsec_mb_shim.c");
    println!("cargo:rerun-if-env-changed=IPSEC_MB_INCLUDE_DIR");
    println!("cargo:rerun-if-env-changed=IPSEC_MB_LIB_DIR");
    println!("cargo:rerun-if-env-changed=WISEC_NO_IPSEC_MB");

    if env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("x86_64") {
        missing("Intel ipsec-mb runs on x86_64 only");
        return;
    }
    if env::var_os("WISEC_NO_IPSEC_MB").is_some() {
        missing("disabled by WISEC_NO_IPSEC_MB at build time");
        return;
    }
    let dirs = include_dirs();
    let Some(dir) = dirs.iter().find(|d| d.join(HEADER).is_file()) else {
        // Installing the header changes its directory, and Cargo then
        // runs this script again: the peer is built on the next build, not
        // only after `cargo clean`. Only existing directories are named: a
        // path that does not exist would rebuild the crate on every build.
        for d in dirs.iter().filter(|d| d.is_dir()) {
            println!("cargo:rerun-if-changed={}", d.display());
        }
        missing("intel-ipsec-mb.h not found at build time (apt-get install libipsec-mb-dev)");
        return;
    };
    println!("cargo:rerun-if-changed={}", dir.join(HEADER).display());

    let mut build = cc::Build::new();
    build
        .file("shim/ipsec_mb_shim.c")
        .include(dir)
        .warnings(true)
        .opt_level(2);
    if let Err(e) = build.try_compile("wisec_ipsec_mb_shim") {
        missing(&format!("the ipsec-mb shim did not compile: {e}").replace('\n', " "));
        return;
    }
    if let Some(lib) = env::var_os("IPSEC_MB_LIB_DIR") {
        println!(
            "cargo:rustc-link-search=native={}",
            PathBuf::from(lib).display()
        );
    }
    println!("cargo:rustc-link-lib=dylib=IPSec_MB");
    println!("cargo:rustc-cfg=wisec_ipsec_mb");
}
