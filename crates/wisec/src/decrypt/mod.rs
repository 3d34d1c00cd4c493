//! Capture decryption and encryption (`wisec decrypt`, `wisec encrypt`),
//! in one place from the command line down to the frames:
//!
//! - [`cli`]: the arguments, the keys they give, the printed summaries;
//! - `io`: IN opened, OUT written through a temporary file and a rename;
//! - [`link`]: the MPDU of each packet (radiotap, FCS) and back;
//! - [`keys`]: keys given on the command line, and the key lookup;
//! - [`tracked`]: keys learned from the handshakes in the capture;
//! - [`pipeline`]: the encrypt and decrypt pipelines and their summaries;
//! - `batched`: the multi-frame CCMP decryption behind the pipeline.

mod batched;
pub mod cli;
mod io;
pub mod keys;
pub mod link;
pub mod pipeline;
pub mod tracked;
