//! A C interface to wisec-crypto's generic AES-CCM and IEEE 802.11 CCMP,
//! for embedded and C users: `include/wisec.h` (generated from this crate
//! by cbindgen and checked by a test) and `libwisec_ffi.a`.
//!
//! Contexts live in storage the caller provides ([`wisec_ccm`],
//! [`wisec_ccmp`]: fixed-size, 16-octet aligned, opaque), so nothing
//! allocates. All `unsafe` code — dereferencing the caller's pointers and
//! placing a Rust value in the caller's storage — is in the [`ffi`]
//! module, each block with its safety argument; the rest of the crate
//! forbids it.
//!
//! With the default `std` feature the library carries Rust's standard
//! library and links into any hosted C program (add `-lpthread -ldl -lm`
//! on Linux). Without it, it is `no_std` with a panic handler that stops
//! the program (no function here panics on any input; the handler is
//! there because a `no_std` static library needs one).
#![cfg_attr(not(feature = "std"), no_std)]
#![deny(unsafe_code)]
#![deny(missing_docs)]
#![allow(non_camel_case_types)]

pub mod ffi;

pub use ffi::*;

#[cfg(all(not(feature = "std"), not(test)))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}
