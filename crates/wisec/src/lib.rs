//! wisec: wireless link security. The std library behind the `wisec` binary:
//! capture I/O and the encrypt/decrypt pipelines.
#![forbid(unsafe_code)]

pub mod capture;
pub mod cli;
