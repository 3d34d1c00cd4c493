//! wisec: wireless link security. The std library behind the `wisec`
//! binary: capture I/O ([`capture`]), locating MPDUs in packets ([`link`]),
//! keys ([`keys`]), the encrypt/decrypt pipelines ([`pipeline`]), synthetic
//! protected sessions ([`synth`]), the lab ([`lab`]), the attack runner
//! ([`attack`]), the benchmarks ([`bench`](mod@bench), [`bench_decrypt`],
//! [`bench_discosec`], [`bench_lab`]) and the command line ([`cli`]).
#![forbid(unsafe_code)]

pub mod analyze;
pub mod attack;
mod batched;
pub mod bench;
pub mod bench_decrypt;
pub mod bench_discosec;
pub mod bench_lab;
pub mod capture;
pub mod cli;
pub mod keys;
pub mod lab;
pub mod lab_run;
pub mod link;
pub mod pipeline;
pub mod sample;
pub mod session;
pub mod synth;
pub mod tracked;
