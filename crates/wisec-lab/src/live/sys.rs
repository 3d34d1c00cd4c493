//! What the live lab needs from the system: privileges, programs (with the
//! Debian package that provides each), and `ip` from iproute2 run with
//! arguments (never a shell string).

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Why a live run could not be set up or went wrong.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// The process lacks the capabilities namespaces and TAP devices need.
    #[error(
        "the live lab needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) to create network \
namespaces and TAP devices; run it as root (for example with sudo)"
    )]
    Privileges,
    /// A program the run needs is not installed.
    #[error(
        "{program} is not installed (Debian package: {package}; scripts/prereqs.sh installs it)"
    )]
    MissingProgram {
        /// The program.
        program: String,
        /// The Debian package that provides it.
        package: String,
    },
    /// A command failed.
    #[error("{command}: {message}")]
    Command {
        /// The command line, for the message.
        command: String,
        /// What it said (its standard error) or how it ended.
        message: String,
    },
    /// The topology or a parameter is wrong.
    #[error("{0}")]
    Config(String),
    /// A system call or file operation failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        source: std::io::Error,
    },
    /// The run was interrupted (Ctrl-C or SIGTERM).
    #[error("interrupted")]
    Interrupted,
}

impl LiveError {
    /// An [`LiveError::Io`] saying what was being done.
    pub fn io(what: impl fmt::Display, source: std::io::Error) -> LiveError {
        LiveError::Io {
            what: what.to_string(),
            source,
        }
    }
}

/// A result of the live lab.
pub type Result<T> = std::result::Result<T, LiveError>;

/// Capability bits (linux/capability.h).
const CAP_NET_ADMIN: u32 = 12;
const CAP_SYS_ADMIN: u32 = 21;

/// The effective capabilities of this process (from /proc/self/status).
fn effective_caps() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("CapEff:"))?;
    u64::from_str_radix(line.trim_start_matches("CapEff:").trim(), 16).ok()
}

/// Checks that the process may create namespaces and TAP devices
/// (CAP_NET_ADMIN for links and TAPs, CAP_SYS_ADMIN for `ip netns`' bind
/// mounts and `setns`), before anything is created.
pub fn require_privileges() -> Result<()> {
    let caps = effective_caps().unwrap_or(0);
    let need = (1u64 << CAP_NET_ADMIN) | (1u64 << CAP_SYS_ADMIN);
    if caps & need == need {
        Ok(())
    } else {
        Err(LiveError::Privileges)
    }
}

/// The Debian package that provides `program`.
pub fn debian_package(program: &str) -> &'static str {
    match program {
        "ip" | "bridge" => "iproute2",
        "iperf3" => "iperf3",
        "ping" => "iputils-ping",
        "tshark" => "tshark",
        "freeradius" | "radiusd" => "freeradius",
        "radclient" | "radtest" => "freeradius-utils",
        "hostapd" | "hostapd_cli" => "hostapd",
        "wpa_supplicant" | "wpa_cli" => "wpasupplicant",
        "eapol_test" => "eapoltest",
        "charon" => "strongswan-charon",
        "swanctl" => "strongswan-swanctl",
        "babeld" => "babeld",
        "taskset" | "chrt" | "unshare" | "nsenter" | "renice" => "util-linux",
        "mount" | "umount" => "mount",
        "nice" | "timeout" => "coreutils",
        "sh" => "dash",
        "nft" => "nftables",
        "iptables" => "iptables",
        "ffmpeg" => "ffmpeg",
        "openssl" => "openssl",
        "qemu-system-x86_64" => "qemu-system-x86",
        "ld" | "objcopy" => "binutils",
        "gcc" => "gcc",
        _ => "unknown",
    }
}

/// Directories searched besides `PATH`: the sbin directories a non-login
/// root shell may miss, and where strongSwan keeps charon.
const EXTRA_DIRS: &[&str] = &[
    "/usr/local/sbin",
    "/usr/sbin",
    "/sbin",
    "/usr/lib/ipsec",
    "/usr/libexec/ipsec",
];

/// The path of `program`, or an error naming its Debian package.
pub fn find_program(program: &str) -> Result<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::env::split_paths(&path).chain(EXTRA_DIRS.iter().map(PathBuf::from));
    for d in dirs {
        let p = d.join(program);
        if is_executable(&p) {
            return Ok(p);
        }
    }
    Err(LiveError::MissingProgram {
        program: program.to_string(),
        package: debian_package(program).to_string(),
    })
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Checks every program of `programs`; the first missing one is the error.
pub fn require_programs(programs: &[&str]) -> Result<()> {
    for p in programs {
        find_program(p)?;
    }
    Ok(())
}

/// The command line of `cmd`, for messages.
pub fn command_line(cmd: &Command) -> String {
    let mut v = vec![cmd.get_program().to_string_lossy().into_owned()];
    v.extend(cmd.get_args().map(|a| a.to_string_lossy().into_owned()));
    v.join(" ")
}

/// Runs `cmd` to completion; its output, or an error with its standard
/// error when it fails.
pub fn run(cmd: &mut Command) -> Result<Output> {
    let line = command_line(cmd);
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| LiveError::io(format!("running {line}"), e))?;
    if out.status.success() {
        Ok(out)
    } else {
        let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
        Err(LiveError::Command {
            command: line,
            message: if err.is_empty() {
                format!("exited with {}", out.status)
            } else {
                err
            },
        })
    }
}

/// Runs `ip ARGS…`.
pub fn ip<I, S>(args: I) -> Result<Output>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let ip = find_program("ip")?;
    run(Command::new(ip).args(args))
}

/// The start time of process `pid` (field 22 of /proc/PID/stat, clock
/// ticks since boot), which tells a live process from a later one that
/// reused its number.
pub fn process_start(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_found_or_named_with_their_package() {
        assert!(find_program("sh").is_ok());
        match find_program("wisec-no-such-program") {
            Err(LiveError::MissingProgram { program, package }) => {
                assert_eq!(program, "wisec-no-such-program");
                assert_eq!(package, "unknown");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(debian_package("eapol_test"), "eapoltest");
        assert_eq!(debian_package("unshare"), "util-linux");
        assert_eq!(debian_package("nft"), "nftables");
        let e = LiveError::MissingProgram {
            program: "iperf3".into(),
            package: debian_package("iperf3").into(),
        };
        assert!(e.to_string().contains("Debian package: iperf3"), "{e}");
    }

    #[test]
    fn own_start_time_is_readable() {
        let me = std::process::id();
        let t = process_start(me);
        assert!(t.is_some());
        assert_eq!(t, process_start(me));
    }

    #[test]
    fn failing_commands_say_what_failed() {
        let e = run(Command::new("sh").args(["-c", "echo boom >&2; exit 3"])).unwrap_err();
        let s = e.to_string();
        assert!(s.starts_with("sh -c echo boom >&2; exit 3: boom"), "{s}");
    }
}
