//! The C ABI. Each function checks its pointers and lengths before it
//! touches anything; every `unsafe` block says what the caller promised
//! (in the function's `# Safety` section, which `include/wisec.h` repeats)
//! and why that makes the block sound.
#![allow(unsafe_code)]

use core::mem::{align_of, size_of};
use core::ptr;
use wisec_crypto::ccm::Ccm;
use wisec_crypto::ccmp::{Ccmp128, Ccmp256};
use wisec_crypto::{Error, FrameProtector};

/// Success.
pub const WISEC_OK: i32 = 0;
/// A null pointer, a context that was not initialised, or a key, tag,
/// length-field or nonce size the mode does not allow.
pub const WISEC_ERR_PARAM: i32 = -1;
/// The output buffer is too small.
pub const WISEC_ERR_BUFFER: i32 = -2;
/// The tag or MIC did not verify (the output holds no plaintext).
pub const WISEC_ERR_AUTH: i32 = -3;
/// The MPDU cannot carry CCMP (too short, no data frame, already or not
/// protected, a wrong security header).
pub const WISEC_ERR_FRAME: i32 = -4;

/// Octets of storage in a `wisec_ccm`.
pub const WISEC_CCM_SIZE: usize = 1024;
/// Octets of storage in a `wisec_ccmp`.
pub const WISEC_CCMP_SIZE: usize = 2048;
/// CCMP header length (IEEE Std 802.11-2020, 12.5.3.2).
pub const WISEC_CCMP_HEADER_LEN: usize = 8;
/// CCMP-128 MIC length.
pub const WISEC_CCMP128_MIC_LEN: usize = 8;
/// CCMP-256 MIC length.
pub const WISEC_CCMP256_MIC_LEN: usize = 16;

/// Where the Rust value starts in a context's storage; the first octets
/// hold `MAGIC` while the context is initialised.
const OFFSET: usize = 16;
const MAGIC: u64 = 0x7769_7365_635f_6f6b; // "wisec_ok"

/// Storage for one CCM key: AES-128/192/256, a tag of M octets, a length
/// field of L octets. Initialise with `wisec_ccm_init`, wipe with
/// `wisec_ccm_wipe`.
#[repr(C, align(16))]
pub struct wisec_ccm {
    opaque: [u8; WISEC_CCM_SIZE],
}

/// Storage for one CCMP temporal key (CCMP-128 with a 16-octet TK,
/// CCMP-256 with a 32-octet TK). Initialise with `wisec_ccmp_init`, wipe
/// with `wisec_ccmp_wipe`.
#[repr(C, align(16))]
pub struct wisec_ccmp {
    opaque: [u8; WISEC_CCMP_SIZE],
}

enum Ccmp {
    C128(Ccmp128),
    C256(Ccmp256),
}

impl Ccmp {
    fn suite(&self) -> &dyn FrameProtector {
        match self {
            Ccmp::C128(s) => s,
            Ccmp::C256(s) => s,
        }
    }
}

// The values fit their storage, at an offset that keeps their alignment.
const _: () = assert!(OFFSET + size_of::<Ccm>() <= WISEC_CCM_SIZE);
const _: () = assert!(align_of::<Ccm>() <= 16);
const _: () = assert!(OFFSET + size_of::<Ccmp>() <= WISEC_CCMP_SIZE);
const _: () = assert!(align_of::<Ccmp>() <= 16);

fn code(e: Error) -> i32 {
    match e {
        Error::InvalidParameter => WISEC_ERR_PARAM,
        Error::BufferTooSmall => WISEC_ERR_BUFFER,
        Error::Integrity => WISEC_ERR_AUTH,
        Error::Malformed | Error::Unsupported => WISEC_ERR_FRAME,
    }
}

/// A byte slice from a C pointer and length: empty for length 0 (any
/// pointer, NULL included), `None` for NULL with a length.
///
/// # Safety
/// Unless `len` is 0, `p` points to `len` readable octets that stay valid
/// and unwritten for `'a`.
unsafe fn slice<'a>(p: *const u8, len: usize) -> Option<&'a [u8]> {
    if len == 0 {
        return Some(&[]);
    }
    if p.is_null() {
        return None;
    }
    // SAFETY: non-null, and the caller promised `len` readable octets.
    Some(unsafe { core::slice::from_raw_parts(p, len) })
}

/// Like [`slice`], writable.
///
/// # Safety
/// Unless `len` is 0, `p` points to `len` writable octets that nothing
/// else reads or writes for `'a`.
unsafe fn slice_mut<'a>(p: *mut u8, len: usize) -> Option<&'a mut [u8]> {
    if len == 0 {
        return Some(&mut []);
    }
    if p.is_null() {
        return None;
    }
    // SAFETY: non-null, and the caller promised `len` exclusive octets.
    Some(unsafe { core::slice::from_raw_parts_mut(p, len) })
}

/// Reads the magic word of a context's storage.
fn is_init(storage: &[u8]) -> bool {
    storage.get(..8).is_some_and(|m| m == MAGIC.to_ne_bytes())
}

macro_rules! context {
    ($ctx:ty, $inner:ty, $get:ident, $put:ident, $wipe:ident) => {
        /// The initialised value in `ctx`, or `None`.
        ///
        /// # Safety
        /// `ctx` is NULL or points to a valid context that is not written
        /// while the reference lives.
        unsafe fn $get<'a>(ctx: *const $ctx) -> Option<&'a $inner> {
            if ctx.is_null() {
                return None;
            }
            // SAFETY: non-null, and the caller promised a valid context.
            let c = unsafe { &*ctx };
            if !is_init(&c.opaque) {
                return None;
            }
            // SAFETY: the magic word is written only by `$put`, after it
            // wrote an `$inner` at OFFSET (16-aligned: the storage is
            // 16-aligned, `$inner` needs at most 16, checked above), and
            // cleared by `$wipe` before that value is dropped.
            Some(unsafe { &*(c.opaque.as_ptr().add(OFFSET) as *const $inner) })
        }

        /// Stores `v` in `ctx`, over whatever was there (wiped first).
        ///
        /// # Safety
        /// `ctx` points to writable storage for a context that nothing else
        /// uses during the call.
        unsafe fn $put(ctx: *mut $ctx, v: $inner) {
            // SAFETY: as promised by the caller.
            unsafe { $wipe(ctx) };
            // SAFETY: `ctx` is valid and exclusive; the value is written
            // at an offset that is aligned for it and inside the storage
            // (checked above); then the magic word marks it initialised.
            unsafe {
                let base = (*ctx).opaque.as_mut_ptr();
                ptr::write(base.add(OFFSET) as *mut $inner, v);
                ptr::write_unaligned(base as *mut u64, MAGIC);
            }
        }

        /// Zeroes the storage of `ctx`. The value in it is not dropped:
        /// its only resource is its key material (no heap, no handles),
        /// which the zeroing wipes; and storage the caller never
        /// initialised is never read as a value.
        ///
        /// # Safety
        /// `ctx` is NULL or points to writable storage for a context that
        /// nothing else uses during the call.
        unsafe fn $wipe(ctx: *mut $ctx) {
            if ctx.is_null() {
                return;
            }
            // SAFETY: non-null and exclusive, as promised.
            let c = unsafe { &mut *ctx };
            zeroize::Zeroize::zeroize(&mut c.opaque[..]);
        }
    };
}

context!(wisec_ccm, Ccm, ccm_ref, ccm_put, ccm_wipe);
context!(wisec_ccmp, Ccmp, ccmp_ref, ccmp_put, ccmp_wipe);

/// Initialises `ctx` with an AES key of 16, 24 or 32 octets, a tag of
/// `tag_len` octets (4, 6, ..., 16) and a length field of `l` octets (2 to
/// 8, so nonces of 15 - l octets); RFC 3610, 2. A context that was
/// initialised before is wiped first.
///
/// # Safety
/// `ctx` points to a `wisec_ccm` nothing else uses during the call; `key`
/// points to `key_len` readable octets.
#[no_mangle]
pub unsafe extern "C" fn wisec_ccm_init(
    ctx: *mut wisec_ccm,
    key: *const u8,
    key_len: usize,
    tag_len: usize,
    l: usize,
) -> i32 {
    if ctx.is_null() {
        return WISEC_ERR_PARAM;
    }
    // SAFETY: the caller promised `key_len` readable octets at `key`.
    let Some(key) = (unsafe { slice(key, key_len) }) else {
        return WISEC_ERR_PARAM;
    };
    match Ccm::new(key, tag_len, l) {
        // SAFETY: `ctx` is non-null and exclusive, as promised.
        Ok(c) => unsafe {
            ccm_put(ctx, c);
            WISEC_OK
        },
        Err(e) => code(e),
    }
}

/// Encrypts `data` (`data_len` octets) in place and writes the tag to
/// `tag` (`tag_len` octets, exactly the context's M), authenticating `aad`
/// too; the nonce has 15 - L octets. RFC 3610, 2.2 and 2.3.
///
/// # Safety
/// `ctx` points to an initialised `wisec_ccm`; each pointer points to as
/// many valid octets as its length says (any pointer, NULL too, for a
/// length of 0); `data` and `tag` do not overlap each other or the inputs.
#[no_mangle]
pub unsafe extern "C" fn wisec_ccm_encrypt(
    ctx: *const wisec_ccm,
    nonce: *const u8,
    nonce_len: usize,
    aad: *const u8,
    aad_len: usize,
    data: *mut u8,
    data_len: usize,
    tag: *mut u8,
    tag_len: usize,
) -> i32 {
    // SAFETY: every pointer and length as the caller promised.
    let (Some(c), Some(n), Some(a), Some(d), Some(t)) = (unsafe {
        (
            ccm_ref(ctx),
            slice(nonce, nonce_len),
            slice(aad, aad_len),
            slice_mut(data, data_len),
            slice_mut(tag, tag_len),
        )
    }) else {
        return WISEC_ERR_PARAM;
    };
    if t.len() != c.tag_len() {
        return WISEC_ERR_PARAM;
    }
    match c.encrypt_in_place_detached(n, a, d, t) {
        Ok(()) => WISEC_OK,
        Err(e) => code(e),
    }
}

/// Decrypts `data` in place and verifies `tag` (exactly M octets) in
/// constant time (RFC 3610, 2.5). On `WISEC_ERR_AUTH` `data` is zeroed:
/// no unverified plaintext is left behind.
///
/// # Safety
/// As for `wisec_ccm_encrypt`.
#[no_mangle]
pub unsafe extern "C" fn wisec_ccm_decrypt(
    ctx: *const wisec_ccm,
    nonce: *const u8,
    nonce_len: usize,
    aad: *const u8,
    aad_len: usize,
    data: *mut u8,
    data_len: usize,
    tag: *const u8,
    tag_len: usize,
) -> i32 {
    // SAFETY: every pointer and length as the caller promised.
    let (Some(c), Some(n), Some(a), Some(d), Some(t)) = (unsafe {
        (
            ccm_ref(ctx),
            slice(nonce, nonce_len),
            slice(aad, aad_len),
            slice_mut(data, data_len),
            slice(tag, tag_len),
        )
    }) else {
        return WISEC_ERR_PARAM;
    };
    match c.decrypt_in_place_detached(n, a, d, t) {
        Ok(()) => WISEC_OK,
        Err(e) => code(e),
    }
}

/// Wipes the key schedule in `ctx` and zeroes its storage. NULL is
/// ignored.
///
/// # Safety
/// `ctx` is NULL or points to a `wisec_ccm` nothing else uses during the
/// call.
#[no_mangle]
pub unsafe extern "C" fn wisec_ccm_wipe(ctx: *mut wisec_ccm) {
    // SAFETY: as the caller promised.
    unsafe { ccm_wipe(ctx) }
}

/// Initialises `ctx` for CCMP with a temporal key of 16 octets (CCMP-128,
/// 8-octet MIC) or 32 octets (CCMP-256, 16-octet MIC); IEEE Std
/// 802.11-2020, 12.5.3 and 12.5.5.
///
/// # Safety
/// `ctx` points to a `wisec_ccmp` nothing else uses during the call; `tk`
/// points to `tk_len` readable octets.
#[no_mangle]
pub unsafe extern "C" fn wisec_ccmp_init(
    ctx: *mut wisec_ccmp,
    tk: *const u8,
    tk_len: usize,
) -> i32 {
    if ctx.is_null() {
        return WISEC_ERR_PARAM;
    }
    // SAFETY: the caller promised `tk_len` readable octets at `tk`.
    let Some(tk) = (unsafe { slice(tk, tk_len) }) else {
        return WISEC_ERR_PARAM;
    };
    let s = match tk.len() {
        16 => Ccmp128::new(tk).map(Ccmp::C128),
        32 => Ccmp256::new(tk).map(Ccmp::C256),
        _ => return WISEC_ERR_PARAM,
    };
    match s {
        // SAFETY: `ctx` is non-null and exclusive, as promised.
        Ok(s) => unsafe {
            ccmp_put(ctx, s);
            WISEC_OK
        },
        Err(e) => code(e),
    }
}

/// Protects the plaintext MPDU `mpdu` (MAC header and body, no FCS;
/// `mpdu_len` octets) into `out` (room for `mpdu_len + 8 +` the MIC
/// length): inserts the CCMP header with packet number `pn` (48 bits) and
/// `key_id` (0-3), encrypts the body, appends the MIC, sets the Protected
/// Frame bit; writes the protected length to `*out_len`. IEEE Std
/// 802.11-2020, 12.5.3.3.
///
/// # Safety
/// `ctx` points to an initialised `wisec_ccmp`; `mpdu` to `mpdu_len`
/// readable octets, `out` to `out_cap` writable ones not overlapping it;
/// `out_len` to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn wisec_ccmp_protect(
    ctx: *const wisec_ccmp,
    mpdu: *const u8,
    mpdu_len: usize,
    pn: u64,
    key_id: u8,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> i32 {
    if out_len.is_null() {
        return WISEC_ERR_PARAM;
    }
    // SAFETY: every pointer and length as the caller promised.
    let (Some(s), Some(m), Some(o)) = (unsafe {
        (
            ccmp_ref(ctx),
            slice(mpdu, mpdu_len),
            slice_mut(out, out_cap),
        )
    }) else {
        return WISEC_ERR_PARAM;
    };
    match s.suite().protect(m, pn, key_id, o) {
        Ok(n) => {
            // SAFETY: `out_len` is non-null and writable, as promised.
            unsafe { out_len.write(n) };
            WISEC_OK
        }
        Err(e) => code(e),
    }
}

/// Unprotects the protected MPDU `mpdu` (`mpdu_len` octets, no FCS) in
/// place: verifies the MIC, decrypts, removes the CCMP header and MIC,
/// clears the Protected Frame bit; writes the plaintext length to
/// `*out_len` and the frame's packet number to `*pn` (for the caller's
/// replay check, which must come after this verification: 12.5.3.4.4).
/// On failure the buffer holds the frame as it was given.
///
/// # Safety
/// `ctx` points to an initialised `wisec_ccmp`; `mpdu` to `mpdu_len`
/// writable octets; `out_len` and `pn` to writable values.
#[no_mangle]
pub unsafe extern "C" fn wisec_ccmp_unprotect(
    ctx: *const wisec_ccmp,
    mpdu: *mut u8,
    mpdu_len: usize,
    out_len: *mut usize,
    pn: *mut u64,
) -> i32 {
    if out_len.is_null() || pn.is_null() {
        return WISEC_ERR_PARAM;
    }
    // SAFETY: every pointer and length as the caller promised.
    let (Some(s), Some(m)) = (unsafe { (ccmp_ref(ctx), slice_mut(mpdu, mpdu_len)) }) else {
        return WISEC_ERR_PARAM;
    };
    match s.suite().unprotect_in_place(m) {
        Ok(u) => {
            // SAFETY: both are non-null and writable, as promised.
            unsafe {
                out_len.write(u.len());
                pn.write(u.pn());
            }
            WISEC_OK
        }
        Err(e) => code(e),
    }
}

/// Wipes the key schedule in `ctx` and zeroes its storage. NULL is
/// ignored.
///
/// # Safety
/// `ctx` is NULL or points to a `wisec_ccmp` nothing else uses during the
/// call.
#[no_mangle]
pub unsafe extern "C" fn wisec_ccmp_wipe(ctx: *mut wisec_ccmp) {
    // SAFETY: as the caller promised.
    unsafe { ccmp_wipe(ctx) }
}

/// Without std the library is built with panic=abort, but the
/// precompiled `core` it contains was built for unwinding and its unwind
/// tables name this personality routine. Nothing ever unwinds, so it is
/// never called; defining it lets the archive link without
/// `--gc-sections`.
#[cfg(not(feature = "std"))]
#[no_mangle]
pub extern "C" fn rust_eh_personality() {}

/// The library's version, a NUL-terminated string.
#[no_mangle]
pub extern "C" fn wisec_version() -> *const core::ffi::c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3610_vector_1_through_the_abi_and_bad_arguments() {
        let key = hex::decode("c0c1c2c3c4c5c6c7c8c9cacbcccdcecf").unwrap();
        let nonce = hex::decode("00000003020100a0a1a2a3a4a5").unwrap();
        let aad = hex::decode("0001020304050607").unwrap();
        let pt = hex::decode("08090a0b0c0d0e0f101112131415161718191a1b1c1d1e").unwrap();
        let mut ctx = wisec_ccm {
            opaque: [0xaa; WISEC_CCM_SIZE],
        };
        let mut data = pt.clone();
        let mut tag = [0u8; 8];
        // SAFETY: every pointer is a live local of the stated length.
        unsafe {
            assert_eq!(
                wisec_ccm_encrypt(
                    &ctx,
                    nonce.as_ptr(),
                    13,
                    aad.as_ptr(),
                    8,
                    data.as_mut_ptr(),
                    23,
                    tag.as_mut_ptr(),
                    8
                ),
                WISEC_ERR_PARAM,
                "not initialised"
            );
            assert_eq!(
                wisec_ccm_init(&mut ctx, key.as_ptr(), 15, 8, 2),
                WISEC_ERR_PARAM
            );
            assert_eq!(wisec_ccm_init(&mut ctx, key.as_ptr(), 16, 8, 2), WISEC_OK);
            assert_eq!(
                wisec_ccm_encrypt(
                    &ctx,
                    nonce.as_ptr(),
                    13,
                    aad.as_ptr(),
                    8,
                    data.as_mut_ptr(),
                    23,
                    tag.as_mut_ptr(),
                    8
                ),
                WISEC_OK
            );
            assert_eq!(
                hex::encode(&data),
                "588c979a61c663d2f066d0c2c0f989806d5f6b61dac384"
            );
            assert_eq!(hex::encode(tag), "17e8d12cfdf926e0");
            tag[0] ^= 1;
            assert_eq!(
                wisec_ccm_decrypt(
                    &ctx,
                    nonce.as_ptr(),
                    13,
                    aad.as_ptr(),
                    8,
                    data.as_mut_ptr(),
                    23,
                    tag.as_ptr(),
                    8
                ),
                WISEC_ERR_AUTH
            );
            assert_eq!(data, [0u8; 23]);
            assert_eq!(
                wisec_ccm_decrypt(
                    &ctx,
                    ptr::null(),
                    13,
                    aad.as_ptr(),
                    8,
                    data.as_mut_ptr(),
                    23,
                    tag.as_ptr(),
                    8
                ),
                WISEC_ERR_PARAM
            );
            wisec_ccm_wipe(&mut ctx);
            assert!(ctx.opaque.iter().all(|b| *b == 0));
            wisec_ccm_wipe(ptr::null_mut());
        }
    }
}
