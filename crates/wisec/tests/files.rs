//! What `wisec decrypt`, `encrypt` and `synth` do with the user's files
//! and streams: --keys-out follows OUT's rules, signals leave nothing
//! behind, sizes are bounded, pipes work both ways, a closed standard
//! output ends quietly, the counts add up, and the small promises of the
//! command line (--strict, -q, the extension-chosen format, the errors).

mod common;

use common::*;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use wisec::capture::Format;

const PASS: &str = "correct horse";
const SSID: &str = "lab";

fn synth(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    synth_capture(dir, name, PASS, SSID, extra)
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

fn parts(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".wisec-"))
        .collect()
}

#[test]
fn keys_out_follows_the_rules_of_out() {
    let dir = tempfile::tempdir().unwrap();
    let cap = synth(dir.path(), "s.pcap", &["--stations", "2", "--frames", "4"]);
    let out = dir.path().join("d.pcap");
    let keys = dir.path().join("keys.txt");
    let before = std::fs::read(&cap).unwrap();
    // Never the input, never OUT: usage errors, nothing written.
    let d = [
        "decrypt",
        p(&cap),
        p(&out),
        "--passphrase",
        PASS,
        "--keys-out",
    ];
    for (target, needle) in [(p(&cap), "is the input file"), (p(&out), "is also")] {
        let mut a = d.to_vec();
        a.extend([target, "--force"]);
        let r = wisec(&a);
        assert_eq!(r.status.code(), Some(2), "{a:?}");
        assert!(String::from_utf8_lossy(&r.stderr).contains(needle));
    }
    assert_eq!(std::fs::read(&cap).unwrap(), before, "the input changed");
    assert!(!out.exists());
    // An existing file only with --force; a world-readable one becomes 0600.
    std::fs::write(&keys, b"precious").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&keys, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let mut a = d.to_vec();
    a.push(p(&keys));
    let r = wisec(&a);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("already exists"));
    assert_eq!(std::fs::read(&keys).unwrap(), b"precious");
    assert!(!out.exists(), "OUT written although --keys-out was refused");
    a.push("--force");
    ok(&a);
    let text = std::fs::read_to_string(&keys).unwrap();
    assert!(text.contains("\"tk\",\""), "{text}");
    #[cfg(unix)]
    {
        assert_eq!(mode(&keys), 0o600);
        assert_eq!(mode(&out), 0o600);
    }
    // An error after the start leaves neither OUT nor the keys.
    let bad = dir.path().join("bad.pcap");
    std::fs::write(&bad, &before[..30]).unwrap();
    let (o2, k2) = (dir.path().join("o2.pcap"), dir.path().join("k2.txt"));
    let r = wisec(&[
        "decrypt",
        p(&bad),
        p(&o2),
        "--passphrase",
        PASS,
        "--keys-out",
        p(&k2),
    ]);
    assert_eq!(r.status.code(), Some(1));
    assert!(!o2.exists() && !k2.exists());
    assert_eq!(parts(dir.path()), Vec::<PathBuf>::new());
}

/// Starts `wisec decrypt - OUT` fed by a pipe that stays open, waits for
/// its temporary output, signals it, and checks what is left.
#[cfg(unix)]
fn signalled(sig: &str, code: i32) {
    let dir = tempfile::tempdir().unwrap();
    let cap = synth(dir.path(), "s.pcap", &["--frames", "300"]);
    let bytes = std::fs::read(&cap).unwrap();
    let out = dir.path().join("plain.pcap");
    let mut child = Command::new(env!("CARGO_BIN_EXE_wisec"))
        .args(["decrypt", "-", p(&out), "--passphrase", PASS])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Half the capture; the rest never comes.
    stdin.write_all(&bytes[..bytes.len() / 2]).unwrap();
    let start = Instant::now();
    while parts(dir.path()).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no temporary output"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let k = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(k.success());
    let status = child.wait().unwrap();
    drop(stdin);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(code), "{sig}: {err}");
    assert!(err.contains("removed the unfinished output"), "{err}");
    assert_eq!(parts(dir.path()), Vec::<PathBuf>::new(), "{sig}");
    assert!(!out.exists());
}

#[cfg(unix)]
#[test]
fn sigint_and_sigterm_leave_no_plaintext_behind() {
    signalled("-INT", 130);
    signalled("-TERM", 143);
}

#[cfg(unix)]
#[test]
fn synth_writes_through_a_temporary_file_removed_on_a_signal() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("big.pcap");
    let mut child = Command::new(env!("CARGO_BIN_EXE_wisec"))
        .args(["synth", p(&out), "--ssid", SSID, "--passphrase", PASS])
        // About 10 s of work in a debug build and ~230 MB estimated: long
        // enough to be interrupted, small enough for the free-space check
        // of a small CI disk.
        .args(["--stations", "10", "--frames", "100000"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while parts(dir.path()).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no temporary output"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!out.exists(), "synth writes OUT only when complete");
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn sizes_are_bounded_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.pcap");
    let t = Instant::now();
    let r = wisec(&[
        "synth",
        p(&out),
        "--ssid",
        SSID,
        "--passphrase",
        PASS,
        "--frames",
        "18446744073709551615",
    ]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("at most"));
    let r = wisec(&["bench", "decrypt", "--frames", "100000000000"]);
    // A count out of range is a usage error (exit status 2).
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains("--frames") && err.contains("1 to 100000000"),
        "{err}"
    );
    assert!(t.elapsed() < Duration::from_secs(20));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn pipes_in_and_out() {
    let dir = tempfile::tempdir().unwrap();
    let cap = synth(
        dir.path(),
        "s.pcapng",
        &["--stations", "2", "--frames", "6"],
    );
    let file_out = dir.path().join("d.pcapng");
    let from_file = json(&["decrypt", p(&cap), p(&file_out), "--passphrase", PASS]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_wisec"))
        .args(["decrypt", "-", "-", "--passphrase", PASS, "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let bytes = std::fs::read(&cap).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&bytes).unwrap());
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The capture on standard output, the summary on standard error.
    assert_eq!(o.stdout, std::fs::read(&file_out).unwrap());
    let s: serde_json::Value = serde_json::from_slice(&o.stderr).unwrap();
    assert_eq!(s, from_file);
    assert!(s["decrypted"].as_u64().unwrap() > 10, "{s}");
    // synth -: the same capture on standard output, the summary on
    // standard error, no file named "-".
    let o = Command::new(env!("CARGO_BIN_EXE_wisec"))
        .current_dir(dir.path())
        .args(["synth", "-", "--stations", "2", "--frames", "6"])
        .args(["--ssid", SSID, "--passphrase", PASS, "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.stdout, std::fs::read(&cap).unwrap());
    let s: serde_json::Value = serde_json::from_slice(&o.stderr).unwrap();
    assert!(s["frames"].as_u64().unwrap() > 10, "{s}");
    assert!(!dir.path().join("-").exists());
}

/// Runs `wisec args…` writing into the named pipe `fifo` and returns what
/// came out of the pipe, with the command's output.
#[cfg(unix)]
fn through_fifo(fifo: &Path, args: &[&str]) -> (Vec<u8>, std::process::Output) {
    let path = fifo.to_path_buf();
    let reader = std::thread::spawn(move || std::fs::read(path).unwrap());
    let o = wisec(args);
    // A run that failed before opening the pipe leaves the reader waiting
    // for a writer: open it and close it, so that the reader sees the end.
    {
        use std::os::unix::fs::OpenOptionsExt;
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(fifo);
    }
    (reader.join().unwrap(), o)
}

#[cfg(unix)]
#[test]
fn pipes_devices_and_links_are_written_through_never_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let cap = synth(dir.path(), "s.pcap", &["--stations", "2", "--frames", "4"]);
    let fifo = dir.path().join("pipe.pcap");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let is_fifo = |f: &Path| std::fs::symlink_metadata(f).unwrap().file_type().is_fifo();
    // decrypt: the same bytes as into a file, with no --force (writing
    // into a pipe overwrites nothing), and the pipe still a pipe.
    let file_out = dir.path().join("d.pcap");
    ok(&["decrypt", p(&cap), p(&file_out), "--passphrase", PASS]);
    let (bytes, o) = through_fifo(&fifo, &["decrypt", p(&cap), p(&fifo), "--passphrase", PASS]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(bytes, std::fs::read(&file_out).unwrap());
    assert!(is_fifo(&fifo), "the named pipe was replaced");
    // synth likewise.
    let synth_to = |out: &Path| {
        let mut a = vec!["synth", p(out), "--stations", "2", "--frames", "4"];
        a.extend(["--passphrase", PASS, "--ssid", SSID]);
        a.iter().map(|s| s.to_string()).collect::<Vec<String>>()
    };
    let file_out = dir.path().join("s2.pcap");
    let a = synth_to(&file_out);
    ok(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let mut a = synth_to(&fifo);
    let a_str: Vec<&str> = a.iter().map(String::as_str).collect();
    let (bytes, o) = through_fifo(&fifo, &a_str);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(bytes, std::fs::read(&file_out).unwrap());
    assert!(is_fifo(&fifo), "the named pipe was replaced");
    assert_eq!(parts(dir.path()), Vec::<PathBuf>::new());
    // A symbolic link is written through (with --force: the file it names
    // exists): the link stays, the file it names gets OUT.
    let real = dir.path().join("real.pcap");
    let link = dir.path().join("link.pcap");
    std::fs::write(&real, b"old").unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let r = wisec(&["decrypt", p(&cap), p(&link), "--passphrase", PASS]);
    assert_eq!(r.status.code(), Some(1), "{r:?}");
    ok(&[
        "decrypt",
        p(&cap),
        p(&link),
        "--passphrase",
        PASS,
        "--force",
    ]);
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read(&real).unwrap(),
        std::fs::read(dir.path().join("d.pcap")).unwrap()
    );
    assert_eq!(parts(dir.path()), Vec::<PathBuf>::new());
    // A directory can be neither replaced nor written in: a usage error
    // before any work.
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let r = wisec(&["decrypt", p(&cap), p(&sub), "--passphrase", PASS, "--force"]);
    assert_eq!(r.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&r.stderr).contains("is a directory"),
        "{r:?}"
    );
    a[1] = p(&sub).to_string();
    a.push("--force".into());
    let r = wisec(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(r.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&r.stderr).contains("is a directory"),
        "{r:?}"
    );
    assert!(std::fs::read_dir(&sub).unwrap().next().is_none());
}

#[test]
fn a_closed_standard_output_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let cap = synth(
        dir.path(),
        "s.pcap",
        &["--stations", "3", "--frames", "2000"],
    );
    // The summary to a reader that went away, and the capture itself.
    for (out, code) in [(dir.path().join("d.pcap"), 0), (PathBuf::from("-"), 141)] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_wisec"))
            .args(["decrypt", p(&cap), p(&out), "--passphrase", PASS])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Read a little (as `head -c 10` does), then close the pipe.
        let mut first = [0u8; 10];
        let mut so = child.stdout.take().unwrap();
        let _ = so.read(&mut first);
        drop(so);
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "{err}"
        );
        assert!(
            matches!(o.status.code(), Some(c) if c == code || c == 0),
            "{:?} {err}",
            o.status
        );
        let _ = std::fs::remove_file(&out);
    }
}

#[test]
fn the_counts_add_up_with_filters_and_ethernet() {
    let dir = tempfile::tempdir().unwrap();
    let cap = synth(dir.path(), "s.pcap", &["--stations", "3", "--frames", "6"]);
    let sta = "02:57:53:00:00:11";
    for extra in [
        vec!["--station", sta],
        vec!["--bssid", "02:57:53:00:00:01", "--ethernet"],
        vec!["--ethernet"],
        vec![],
    ] {
        let out = dir.path().join("o.pcap");
        let mut a = vec!["decrypt", p(&cap), p(&out), "--passphrase", PASS, "--force"];
        a.extend(extra.iter().copied());
        let s = json(&a);
        let text = ok(&a);
        let written = read(&out).1.len() as u64;
        let n = |k: &str| s[k].as_u64().unwrap();
        assert_eq!(n("written"), written, "{extra:?}: {s}");
        assert_eq!(n("frames"), n("decrypted") + n("unchanged"), "{extra:?}");
        let unchanged_written = n("written_unchanged");
        if s["ethernet"] == true {
            // Only decrypted data frames, as Ethernet frames.
            assert_eq!(unchanged_written, 0, "{s}");
        } else {
            assert_eq!(
                unchanged_written + n("decrypted"),
                written,
                "{extra:?}: {s}"
            );
        }
        assert!(
            text.contains(&format!("written unchanged {unchanged_written}")),
            "{extra:?}: {text}"
        );
        if n("frames") > written {
            assert!(
                text.contains(&format!("left out {}", n("frames") - written)),
                "{extra:?}: {text}"
            );
        }
    }
}

#[test]
fn strict_quiet_and_the_format_from_the_extension() {
    let dir = tempfile::tempdir().unwrap();
    let cap = synth(dir.path(), "s.pcapng", &["--frames", "4"]);
    // -q: one line.
    let out = dir.path().join("d.pcap");
    let q = ok(&["decrypt", p(&cap), p(&out), "--passphrase", PASS, "-q"]);
    assert_eq!(q.lines().count(), 1, "{q}");
    assert!(q.contains("decrypted 5"), "{q}");
    // OUT's extension chose pcap for a pcapng input; .pcapng.gz the
    // reverse, compressed.
    assert_eq!(
        &std::fs::read(&out).unwrap()[..4],
        &[0xd4, 0xc3, 0xb2, 0xa1]
    );
    let back = dir.path().join("e.pcapng.gz");
    ok(&["decrypt", p(&out), p(&back), "--passphrase", PASS]);
    let mut gz = flate2::read::GzDecoder::new(std::fs::File::open(&back).unwrap());
    let mut head = [0u8; 4];
    gz.read_exact(&mut head).unwrap();
    assert_eq!(head, [0x0a, 0x0d, 0x0d, 0x0a]);
    // --strict: a wrong passphrase decrypts nothing: status 4, and says
    // why in the summary.
    let o2 = dir.path().join("w.pcap");
    let r = wisec(&[
        "decrypt",
        p(&cap),
        p(&o2),
        "--passphrase",
        "wrong horse",
        "--strict",
    ]);
    assert_eq!(r.status.code(), Some(4));
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(
        text.contains("no credential matched (wrong passphrase or PSK?)"),
        "{text}"
    );
    assert!(String::from_utf8_lossy(&r.stderr).contains("--strict: nothing was decrypted"));
    let o3 = dir.path().join("s.pcap");
    ok(&["decrypt", p(&cap), p(&o3), "--passphrase", PASS, "--strict"]);
}

#[test]
fn small_promises_of_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    // encrypt --fcs yes on frames without an FCS protects nothing: an
    // error, and no OUT.
    let input = sample(dir.path(), "in.pcapng", opts(Format::Pcapng, 105, false));
    let out = dir.path().join("o.pcapng");
    let r = wisec(&[
        "encrypt",
        p(&input),
        p(&out),
        "--suite",
        "ccmp",
        "--key",
        K16,
        "--fcs",
        "yes",
    ]);
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains("nothing was protected") && err.contains("--fcs"),
        "{err}"
    );
    assert!(!out.exists());
    // --suite wep40 with a 16-byte key, a WEP key of the other length.
    let d = |extra: &[&str]| {
        let mut a = vec!["decrypt", p(&input), p(&out)];
        a.extend_from_slice(extra);
        wisec(&a)
    };
    for extra in [
        vec!["--suite", "wep40", "--tk", K16],
        vec!["--suite", "wep40", "--wep", WEP104],
        vec!["--pmk", "0011"],
    ] {
        let r = d(&extra);
        assert_eq!(r.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        if extra[0] == "--pmk" {
            assert!(err.contains("32, 48 or 64 bytes"), "{err}");
        }
    }
    // The help says what the error says.
    assert!(ok(&["decrypt", "--help"]).contains("32, 48 or 64 bytes"));
    assert!(!out.exists());
}
