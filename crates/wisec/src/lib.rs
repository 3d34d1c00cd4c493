//! wisec: wireless link security. The std library behind the `wisec`
//! binary: capture I/O ([`capture`]), locating MPDUs in packets ([`link`]),
//! keys ([`keys`]), the encrypt/decrypt pipelines ([`pipeline`]), synthetic
//! protected sessions ([`synth`]), the lab ([`lab`]), the benchmarks
//! ([`bench`](mod@bench)) and the command line ([`cli`]).
#![forbid(unsafe_code)]

mod batched;
pub mod bench;
pub mod bench_decrypt;
pub mod capture;
pub mod cli;
pub mod keys;
pub mod lab;
pub mod link;
pub mod pipeline;
pub mod sample;
pub mod session;
pub mod synth;
pub mod tracked;
