//! `wisec._native`: the extension module under the `wisec` Python
//! package (crates/wisec-py/python/wisec), built by maturin as an abi3
//! wheel for Python 3.9 and later.
//!
//! Everything here validates its arguments before it reaches the library
//! and turns every failure into a Python exception: `TypeError` for a
//! wrong type, `ValueError` (or one of the subclasses below) with the
//! message the `wisec` command prints for the same mistake. A panic is a
//! bug; `guard` still turns one into `RuntimeError` rather than let it
//! reach the interpreter as `PanicException`.
#![forbid(unsafe_code)]

mod args;
mod crypto;
mod decrypt;
mod lab;
mod tracker;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    wisec,
    IntegrityError,
    PyValueError,
    "A frame's MIC, tag or ICV did not verify (IEEE Std 802.11-2020, 12.5); nothing of its plaintext is returned."
);
pyo3::create_exception!(
    wisec,
    ReplayError,
    PyValueError,
    "A verified frame repeated a packet number: the replay counter did not move."
);
pyo3::create_exception!(
    wisec,
    CaptureError,
    PyValueError,
    "A capture file (pcap or pcapng) is not one, or is damaged before its first packet; the message names the file and the byte offset."
);
pyo3::create_exception!(
    wisec,
    UsageError,
    PyValueError,
    "An argument the wisec command would refuse, with the command's message."
);

/// Runs `f`, turning a panic into `RuntimeError` (a bug in wisec, never
/// an answer to the caller's input).
pub(crate) fn guard<T>(what: &str, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => Err(PyRuntimeError::new_err(format!(
            "internal error in {what}: {} (please report it)",
            panic_text(&p)
        ))),
    }
}

/// The message of a caught panic.
pub(crate) fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_string()
    }
}

#[pymodule]
#[pyo3(name = "_native")]
fn wisec_native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("IntegrityError", py.get_type::<IntegrityError>())?;
    m.add("ReplayError", py.get_type::<ReplayError>())?;
    m.add("CaptureError", py.get_type::<CaptureError>())?;
    m.add("UsageError", py.get_type::<UsageError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    crypto::register(m)?;
    tracker::register(m)?;
    decrypt::register(m)?;
    lab::register(m)?;
    Ok(())
}
