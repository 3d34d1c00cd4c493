//! The `wisec attack` command line.

use super::{render, run, AttackKind, Protection, Scenario};
use clap::{Args, Subcommand, ValueEnum};
use std::time::Duration;

/// Examples shown by `wisec attack run --help`.
pub const EXAMPLES: &str = "\
Examples:
  wisec attack run --attack deauth --protection none
  wisec attack run --attack deauth --protection pmf --stations 10 --json
  wisec attack run --attack authflood --protection discosec-fast --rate 200 --duration 10
  wisec attack run --attack authflood --protection discosec-full --no-token-protection";

/// `wisec attack` subcommands.
#[derive(Debug, Subcommand)]
pub enum AttackCommand {
    /// Run one attack against one protection on a virtual channel
    #[command(after_help = EXAMPLES)]
    Run(RunArgs),
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum AttackArg {
    Deauth,
    Disassoc,
    Authflood,
    Replay,
    AssocSpoof,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ProtectionArg {
    None,
    Pmf,
    DiscosecFast,
    DiscosecFull,
}

/// Options of `wisec attack run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The attack
    #[arg(long, value_enum)]
    attack: AttackArg,
    /// The protection the network runs
    #[arg(long, value_enum)]
    protection: ProtectionArg,
    /// Legitimate stations (1 to 200)
    #[arg(long, value_name = "N", default_value_t = 5,
          value_parser = |s: &str| crate::cli::num::int(s, 1usize, 200))]
    stations: usize,
    /// Attacker frames per second, above 0, at most 100000
    #[arg(long, value_name = "R", default_value_t = 100.0, allow_negative_numbers = true,
          value_parser = |s: &str| crate::cli::num::positive(s, 100_000.0))]
    rate: f64,
    /// Attack length (virtual time), above 0, at most 1h: seconds, or with a
    /// unit (500ms, 10s, 2m)
    #[arg(long, value_name = "DURATION", default_value_t = 10.0, allow_negative_numbers = true,
          value_parser = |s: &str| crate::cli::num::duration(s, true, std::time::Duration::from_secs(3600)).map(|d| d.as_secs_f64()))]
    duration: f64,
    /// Seed of every random choice, 0 to 2^63-1
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = crate::cli::num::seed)]
    seed: u64,
    /// DiscoSec without its association-token DoS protection
    #[arg(long)]
    no_token_protection: bool,
    /// DiscoSec tokens per interval (1 to 62)
    #[arg(long, value_name = "N", default_value_t = 10,
          value_parser = |s: &str| crate::cli::num::int(s, 1usize, 62))]
    tokens: usize,
    #[command(flatten)]
    out: crate::tabular::TableFormat,
}

/// The columns of `--csv`: the JSON's fields but the timeline (nested
/// ones by their path, `attacker.sent`).
pub const CSV_COLUMNS: [&str; 17] = [
    "attack",
    "protection",
    "stations",
    "rate",
    "duration_s",
    "seed",
    "token_protection",
    "tokens_per_interval",
    "keys",
    "associated_before",
    "associated_end",
    "disconnections",
    "stations_disconnected",
    "forced_reassociations",
    "attacker",
    "ap",
    "late_station",
];

/// What went wrong.
#[derive(Debug)]
pub enum Error {
    /// A bad option.
    Usage(String),
    /// Output failed.
    Runtime(anyhow::Error),
}

/// Runs `wisec attack`.
pub fn main(c: AttackCommand) -> Result<(), Error> {
    let AttackCommand::Run(a) = c;
    if !(1..=200).contains(&a.stations) {
        return Err(Error::Usage("--stations: 1 to 200".into()));
    }
    if !(a.rate.is_finite() && a.rate >= 0.0 && a.rate <= 100_000.0) {
        return Err(Error::Usage("--rate: 0 to 100000 frames per second".into()));
    }
    if !(a.duration.is_finite() && a.duration > 0.0 && a.duration <= 3600.0) {
        return Err(Error::Usage(
            "--duration: more than 0 and at most 3600 seconds".into(),
        ));
    }
    if !(1..=62).contains(&a.tokens) {
        return Err(Error::Usage("--tokens: 1 to 62".into()));
    }
    let s = Scenario {
        attack: match a.attack {
            AttackArg::Deauth => AttackKind::Deauth,
            AttackArg::Disassoc => AttackKind::Disassoc,
            AttackArg::Authflood => AttackKind::Authflood,
            AttackArg::Replay => AttackKind::Replay,
            AttackArg::AssocSpoof => AttackKind::AssocSpoof,
        },
        protection: match a.protection {
            ProtectionArg::None => Protection::None,
            ProtectionArg::Pmf => Protection::Pmf,
            ProtectionArg::DiscosecFast => Protection::DiscosecFast,
            ProtectionArg::DiscosecFull => Protection::DiscosecFull,
        },
        stations: a.stations,
        rate: a.rate,
        duration: Duration::from_secs_f64(a.duration),
        seed: a.seed,
        token_protection: !a.no_token_protection,
        tokens_per_interval: a.tokens,
    };
    let r = run(&s);
    if a.out.csv {
        let c = crate::tabular::csv(&CSV_COLUMNS, std::slice::from_ref(&r))
            .map_err(|e| Error::Runtime(e.into()))?;
        crate::out!("{c}");
    } else if a.out.json {
        let j = serde_json::to_string_pretty(&r).map_err(|e| Error::Runtime(e.into()))?;
        crate::outln!("{j}");
    } else {
        crate::out!("{}", render(&[r]));
    }
    Ok(())
}
