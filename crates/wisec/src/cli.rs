//! Command-line interface: the `wisec` arguments and the dispatch to
//! each command's module.

use crate::error::{usage, Failure};
use clap::{Parser, Subcommand};

const ABOUT: &str = "IEEE 802.11 link security: protect and unprotect the frames of a capture";

/// The `wisec` command line.
#[derive(Debug, Parser)]
#[command(
    name = "wisec",
    version,
    about = ABOUT,
    long_about = "wisec reads and writes pcap and pcapng captures (gzip-compressed or not) of \
IEEE 802.11 frames, with or without radiotap headers and FCS, and protects or unprotects \
their frames with WEP, TKIP, CCMP, GCMP and BIP.\n\n\
Exit status: 0 on success, 1 when the input or the environment fails, 2 on a usage error, \
3 when decrypt or encrypt met a damaged input (and wrote everything before the damage), \
4 when decrypt --strict found nothing decrypted or an integrity failure.",
    after_help = "Run 'wisec encrypt --help' or 'wisec decrypt --help' for examples."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Protect the unprotected frames of a capture with one key
    #[command(after_help = crate::decrypt::cli::ENCRYPT_EXAMPLES)]
    Encrypt(crate::decrypt::cli::EncryptArgs),
    /// Unprotect the protected frames of a capture with the keys given
    #[command(after_help = crate::decrypt::cli::DECRYPT_EXAMPLES)]
    Decrypt(Box<crate::decrypt::cli::DecryptArgs>),
    /// Write a synthetic capture of a whole protected session
    #[command(after_help = crate::synth::cli::EXAMPLES)]
    Synth(crate::synth::cli::SynthArgs),
    /// Run the lab's simulated experiments
    Lab(crate::lab::LabArgs),
    /// Break a capture down into exchange groups and their delays (seed
    /// 000's Table 3)
    Analyze(crate::analyze::AnalyzeArgs),
    /// Attacks on management frames against no protection, 802.11w and
    /// DiscoSec, on a virtual channel
    Attack {
        #[command(subcommand)]
        what: crate::attack::cli::AttackCommand,
    },
    /// Benchmarks: `crypto` times every suite beside its peers, `decrypt`
    /// decrypts a large capture beside airdecap-ng and tshark, `discosec`
    /// times DiscoSec beside OpenSSL
    Bench {
        #[command(subcommand)]
        what: crate::bench::BenchCommand,
    },
    /// The external interface of a Linux kernel module: undefined symbols
    /// by provider (#KSC, #EMC), global functions and data (#EDO),
    /// parameters (seed 000's Figure 6)
    #[command(name = "ko-deps", after_help = crate::ko_deps::cli::EXAMPLES)]
    KoDeps(crate::ko_deps::cli::KoDepsArgs),
    /// Seed 000's bare machine: wisec's CCM in an image with no operating
    /// system under QEMU, and the CCM-UDP exchange with it
    Bare(crate::bare::BareArgs),
}

/// Runs the command line, returning the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion)
                || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            {
                let code = if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    2
                } else {
                    0
                };
                let _ = e.print();
                return code;
            }
            // clap's message, up to its usage section, on one line.
            let text = e.render().to_string();
            let words: Vec<&str> = text
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            let line = words.join(" ");
            let line = line.strip_prefix("error: ").unwrap_or(&line);
            eprintln!("wisec: error: {line} (see wisec --help)");
            return 2;
        }
    };
    let result = run(cli);
    if crate::error::stdout_closed() && !matches!(result, Err(Failure::Usage(_))) {
        // The reader of standard output went away: end as a program
        // killed by SIGPIPE would, without a word.
        return crate::error::EXIT_BROKEN_PIPE;
    }
    match result {
        Ok(()) => 0,
        Err(Failure::Usage(m)) => {
            eprintln!("wisec: error: {m}");
            2
        }
        Err(Failure::Runtime(e)) => {
            if crate::error::is_broken_pipe(&e) {
                return crate::error::EXIT_BROKEN_PIPE;
            }
            eprintln!("wisec: error: {e:#}");
            1
        }
        Err(Failure::Status(code)) => code,
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Encrypt(a) => crate::decrypt::cli::encrypt(a),
        Command::Decrypt(a) => crate::decrypt::cli::decrypt(*a),
        Command::Synth(a) => crate::synth::cli::run(a).map_err(|e| match e {
            crate::synth::cli::Error::Usage(m) => usage(m),
            crate::synth::cli::Error::Runtime(e) => Failure::from(e),
        }),
        Command::Lab(a) => crate::lab::run(a),
        Command::Analyze(a) => crate::analyze::run(a),
        Command::Attack { what } => crate::attack::cli::main(what).map_err(|e| match e {
            crate::attack::cli::Error::Usage(m) => usage(m),
            crate::attack::cli::Error::Runtime(e) => Failure::Runtime(e),
        }),
        Command::Bench { what } => crate::bench::run(what),
        Command::KoDeps(a) => crate::ko_deps::cli::run(a),
        Command::Bare(a) => crate::bare::run(a),
    }
}

/// Parsers of the numbers on the command line, shared by every command so
/// that the same kind of number has the same range and the same words
/// everywhere. A value out of range is a usage error (exit status 2)
/// found before any work starts.
pub mod num {
    use std::fmt::Display;
    use std::str::FromStr;
    use std::time::Duration;

    /// The largest seed: seeds are stored in TOML scenarios and JSON
    /// results, whose integers are signed 64-bit.
    pub const MAX_SEED: u64 = i64::MAX as u64;

    /// A seed, 0 to 2^63-1.
    pub fn seed(s: &str) -> Result<u64, String> {
        let v: u64 = s
            .trim()
            .parse()
            .map_err(|_| format!("{s:?} is not a whole number from 0 to {MAX_SEED}"))?;
        if v > MAX_SEED {
            return Err(format!(
                "{v} is out of range: seeds are 0 to {MAX_SEED} (2^63-1)"
            ));
        }
        Ok(v)
    }

    /// A whole number from `lo` to `hi`.
    pub fn int<T>(s: &str, lo: T, hi: T) -> Result<T, String>
    where
        T: FromStr + PartialOrd + Display + Copy,
    {
        let v: T = s
            .trim()
            .parse()
            .map_err(|_| format!("{s:?} is not a whole number from {lo} to {hi}"))?;
        if v < lo || v > hi {
            return Err(format!("{v} is out of range {lo} to {hi}"));
        }
        Ok(v)
    }

    /// A number above 0 and at most `hi`.
    pub fn positive(s: &str, hi: f64) -> Result<f64, String> {
        let v: f64 = s
            .trim()
            .parse()
            .map_err(|_| format!("{s:?} is not a number"))?;
        if v.is_nan() || v <= 0.0 || v > hi {
            return Err(format!("{s} is out of range: above 0, at most {hi}"));
        }
        Ok(v)
    }

    /// A duration with its unit: `250ms`, `1.5s`, `2m`, `500us`. A bare
    /// number is refused when the option used to take another unit
    /// (`bare` is `None`), else read in seconds.
    pub fn duration(s: &str, bare_in_seconds: bool, max: Duration) -> Result<Duration, String> {
        let t = s.trim();
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(t.len());
        let (num, unit) = t.split_at(split);
        let v: f64 = num
            .parse()
            .map_err(|_| format!("{s:?} is not a duration (say 250ms, 1.5s or 2m)"))?;
        let secs = match unit.trim() {
            "" if bare_in_seconds => v,
            "" => {
                return Err(format!(
                    "{s:?} has no unit: say {s}ms or {s}s (durations take a unit now)"
                ))
            }
            "us" | "µs" => v / 1e6,
            "ms" => v / 1e3,
            "s" => v,
            "m" | "min" => v * 60.0,
            u => return Err(format!("{s:?}: unknown unit {u:?} (us, ms, s or m)")),
        };
        if secs.is_nan() || secs <= 0.0 || secs > max.as_secs_f64() {
            return Err(format!(
                "{s} is out of range: above 0, at most {}s",
                max.as_secs_f64()
            ));
        }
        Ok(Duration::from_secs_f64(secs))
    }
}
