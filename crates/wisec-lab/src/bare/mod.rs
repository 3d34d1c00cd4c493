//! Seed 000's bare machine for real: wisec's CCM in an x86-64 image with
//! no operating system ([`wisec_bare`]), booted under QEMU, exchanging
//! CCM-protected UDP with a Linux peer; and the same exchange between two
//! Linux endpoints in network namespaces.
//!
//! - [`image`]: builds the image from the workspace;
//! - [`qemu`]: boots it, reads its console, forwards a loopback port;
//! - [`peer`]: the Linux initiator (echo round trips, Figure 12 as client
//!   and as server, reports);
//! - [`linux`]: the responder on a Linux socket (the Linux–Linux runs);
//! - [`run`]: the whole measurement per message size, and its report
//!   beside the simulated model and seed 000's figures.

pub mod image;
pub mod linux;
pub mod peer;
pub mod qemu;
pub mod run;

use std::io::Read;
use zeroize::Zeroizing;

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum BareError {
    /// A parameter is wrong.
    #[error("{0}")]
    Usage(String),
    /// A tool is missing or failed (cargo, ld, objcopy, QEMU).
    #[error("{0}")]
    Tool(String),
    /// The guest or the responder misbehaved.
    #[error("{0}")]
    Guest(String),
    /// QEMU could not forward this loopback port (it is taken).
    #[error("UDP port {0} on 127.0.0.1 is taken")]
    PortTaken(u16),
    /// A system call failed.
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    /// The namespaces of the Linux–Linux run.
    #[error(transparent)]
    Live(#[from] crate::live::LiveError),
    /// Stopped by Ctrl-C or SIGTERM.
    #[error("interrupted")]
    Interrupted,
}

/// A fresh AES-128 key from the operating system's random source.
pub fn random_key() -> Result<Zeroizing<[u8; 16]>, BareError> {
    let mut k = Zeroizing::new([0u8; 16]);
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut k[..]))
        .map_err(|e| BareError::Io("reading /dev/urandom".into(), e))?;
    Ok(k)
}
