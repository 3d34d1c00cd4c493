//! wisec: wireless link security. The std library behind the `wisec`
//! binary, one module per command: capture decryption and encryption
//! ([`decrypt`]: its pipeline, keys and link layer), capture I/O
//! ([`capture`]), synthetic protected sessions ([`synth`]), the lab
//! ([`lab`]), capture analysis ([`analyze`]), the attack runner
//! ([`attack`]), the benchmarks ([`bench`](mod@bench)), the command line
//! ([`cli`]) and the error every command returns ([`error`]).
#![forbid(unsafe_code)]

pub mod analyze;
pub mod attack;
pub mod bare;
pub mod bench;
pub mod capture;
pub mod cli;
pub mod decrypt;
pub mod error;
pub mod ko_deps;
pub mod lab;
pub mod outfile;
pub mod sample;
pub mod session;
pub mod synth;
pub mod tabular;
