//! Which vector code paths this CPU runs, against the flags the kernel
//! reports in /proc/cpuinfo, and a summary of them for the test run: the
//! path tests (`batch_paths`, `gcm_paths`, the CRC-32 unit tests) run
//! every path this CPU has and skip the others, so a path this CPU lacks
//! is untested here and the summary says so. `scripts/test` prints it.

use wisec_crypto::batch::Path;
use wisec_crypto::crc32;
use wisec_crypto::gcm::Gcm;

/// The CPU flags Linux reports, or `None` off Linux.
fn cpu_flags() -> Option<Vec<String>> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("flags"))?;
    Some(
        line.split_once(':')?
            .1
            .split_whitespace()
            .map(str::to_string)
            .collect(),
    )
}

#[test]
fn detected_paths_agree_with_the_kernel_and_are_summarised() {
    // The portable paths run everywhere.
    assert!(Path::Portable.is_available());
    assert!(Gcm::path_available(Path::Portable));
    assert!(crc32::path_available(Path::Portable));

    // A software-AES build runs no AES instruction: every vector path is
    // off whatever the CPU has.
    let soft = wisec_crypto::software_aes_build();
    if soft {
        for p in Path::ALL.into_iter().filter(|&p| p != Path::Portable) {
            assert!(!p.is_available(), "CCMP batch {} in a soft build", p.name());
            assert!(!Gcm::path_available(p), "GCM {} in a soft build", p.name());
        }
    } else if let Some(flags) = cpu_flags() {
        let has = |f: &str| flags.iter().any(|x| x == f);
        // What each path needs, in the kernel's names (the engines also
        // check that the OS saves the register state, which the kernel
        // only lists a flag for when it does).
        let needs: [(Path, &[&str]); 3] = [
            (Path::AesNi, &["aes", "ssse3"]),
            (Path::Avx2, &["aes", "avx2", "vaes"]),
            (
                Path::Avx512,
                &["aes", "avx2", "vaes", "avx512f", "avx512bw", "avx512vl"],
            ),
        ];
        for (p, n) in needs {
            let want = n.iter().all(|f| has(f));
            assert_eq!(p.is_available(), want, "CCMP batch {}", p.name());
            let clmul = if p == Path::AesNi {
                has("pclmulqdq")
            } else {
                has("vpclmulqdq") && has("pclmulqdq")
            };
            assert_eq!(Gcm::path_available(p), want && clmul, "GCM {}", p.name());
        }
    }

    println!("SIMD paths on this CPU (the path tests ran the ones marked ran):");
    let mark = |ok: bool| {
        if ok {
            "ran"
        } else if soft {
            "UNTESTED: software-AES build"
        } else {
            "UNTESTED: this CPU lacks it"
        }
    };
    for p in Path::ALL {
        println!(
            "  {:<9} CCMP batch: {:<28} GCM: {:<28} CRC-32 folding: {}",
            p.name(),
            mark(p.is_available()),
            mark(Gcm::path_available(p)),
            mark(crc32::path_available(p)),
        );
    }
}
