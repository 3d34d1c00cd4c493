//! `wisec bench`: benchmarks that are programs, never timed tests.
//!
//! - [`crypto`]: every cipher suite beside the CCM peers;
//! - [`decrypt`]: capture decryption beside airdecap-ng and tshark;
//! - [`discosec`]: DiscoSec key exchange and MACs beside OpenSSL;
//! - [`icbc`]: seed 002's CCMP phases, standard and interleaved MAC;
//! - [`lab`]: the lab simulator's own speed.

pub mod crypto;
pub mod decrypt;
pub mod discosec;
pub mod icbc;
pub mod lab;
#[cfg(target_os = "linux")]
pub mod live;

use crate::error::Failure;
use clap::Subcommand;

/// The benchmarks.
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Time every cipher suite and the CCM peers (OpenSSL, Intel ipsec-mb,
    /// RustCrypto) on the same frames
    #[command(after_help = crypto::CRYPTO_HELP)]
    Crypto(crypto::CryptoArgs),
    /// Decrypt large wisec synth captures (1 million CCMP, TKIP and WEP
    /// frames, 100 000 GCMP) with wisec (one thread and every core),
    /// airdecap-ng and tshark, and compare frames/s; a synced copy of each
    /// capture (dd) in the same rounds for reference
    Decrypt(decrypt::DecryptBenchArgs),
    /// DiscoSec key exchange per curve and MAC time per frame size, beside
    /// OpenSSL
    Discosec(discosec::DiscosecArgs),
    /// Seed 002: CCMP-128 encryption time by phase (header work, MIC, CTR),
    /// standard CBC-MAC vs the 2-way interleaved CBC-MAC, on the AES this
    /// binary runs (scripts/soft-aes builds one without AES instructions)
    Icbc(icbc::IcbcArgs),
    /// The lab simulator's speed on the saturation experiment: simulated
    /// seconds and events per wall-clock second for 1, 10 and 50 stations
    Lab(lab::LabBenchArgs),
    /// The live lab's medium on saturated links (iperf3 in namespaces): throughput
    /// beside the simulator's, medium lag and CPU (needs root)
    #[cfg(target_os = "linux")]
    Live(live::LiveBenchArgs),
}

/// Runs a `wisec bench` command.
pub fn run(cmd: BenchCommand) -> Result<(), Failure> {
    match cmd {
        BenchCommand::Crypto(a) => crypto::crypto(a),
        BenchCommand::Decrypt(a) => {
            let out = a.format();
            let r = decrypt::run(a)?;
            decrypt::print(&r, out)
        }
        BenchCommand::Lab(a) => lab::main(a),
        BenchCommand::Icbc(a) => icbc::main(a),
        BenchCommand::Discosec(a) => discosec::main(a).map_err(|e| match e {
            discosec::Error::Usage(m) => Failure::Usage(m),
            discosec::Error::Runtime(e) => Failure::Runtime(e),
        }),
        #[cfg(target_os = "linux")]
        BenchCommand::Live(a) => live::run(a, crate::lab::interrupt_flag()),
    }
}
