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
    match run(cli) {
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
