//! wisec: wireless link security. The std library behind the `wisec`
//! binary: capture I/O ([`capture`]), locating MPDUs in packets ([`link`]),
//! keys ([`keys`]), the encrypt/decrypt pipelines ([`pipeline`]), synthetic
//! protected sessions ([`synth`]), the attack runner ([`attack`]), the
//! DiscoSec benchmark ([`bench_discosec`]) and the command line ([`cli`]).
#![forbid(unsafe_code)]

pub mod attack;
pub mod bench_discosec;
pub mod capture;
pub mod cli;
pub mod keys;
pub mod link;
pub mod pipeline;
pub mod sample;
pub mod synth;
