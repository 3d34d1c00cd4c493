//! OpenSSL's AES-CMAC keyed once, as wisec's `AesCmac` is: the key
//! schedule is built by one `CMAC_Init` with the key; every message then
//! restarts the context with `CMAC_Init(ctx, NULL, 0, NULL, NULL)`, which
//! keeps the expanded key (OpenSSL's documented way to compute many MACs
//! under one key; `EVP_PKEY`/`EVP_DigestSign` would expand it again per
//! message).

use crate::PeerError;
use openssl_sys as ffi;
use std::ffi::c_void;

/// AES-CMAC (AES-128 or AES-256) through OpenSSL, keyed.
pub struct OpensslCmac {
    ctx: *mut ffi::CMAC_CTX,
}

impl OpensslCmac {
    /// Keys CMAC with a 16- or 32-octet AES key.
    pub fn new(key: &[u8]) -> Result<OpensslCmac, PeerError> {
        openssl::init();
        // SAFETY: the EVP_aes_* functions return static cipher objects.
        let cipher = unsafe {
            match key.len() {
                16 => ffi::EVP_aes_128_cbc(),
                32 => ffi::EVP_aes_256_cbc(),
                _ => return Err(PeerError::InvalidParameter("key must be 16 or 32 octets")),
            }
        };
        // SAFETY: CMAC_CTX_new takes no arguments; NULL is checked.
        let ctx = unsafe { ffi::CMAC_CTX_new() };
        if ctx.is_null() {
            return Err(PeerError::Library("CMAC_CTX_new failed".to_string()));
        }
        let me = OpensslCmac { ctx };
        // SAFETY: `ctx` is live; `key` is valid for `key.len()` reads and
        // OpenSSL copies what it needs; no engine.
        let r = unsafe {
            ffi::CMAC_Init(
                me.ctx,
                key.as_ptr().cast::<c_void>(),
                key.len(),
                cipher,
                std::ptr::null_mut(),
            )
        };
        if r != 1 {
            return Err(PeerError::Library(
                "CMAC_Init with the key failed".to_string(),
            ));
        }
        Ok(me)
    }

    /// The 16-octet CMAC of `data`.
    pub fn mac(&mut self, data: &[u8]) -> Result<[u8; 16], PeerError> {
        let mut out = [0u8; 16];
        let mut len: usize = 0;
        // SAFETY: `ctx` is live and keyed (`new`); the all-NULL init
        // restarts it under the same key; `data` is valid for its length;
        // `out` has the 16 octets an AES-CMAC writes.
        let ok = unsafe {
            ffi::CMAC_Init(
                self.ctx,
                std::ptr::null(),
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            ) == 1
                && ffi::CMAC_Update(self.ctx, data.as_ptr().cast::<c_void>(), data.len()) == 1
                && ffi::CMAC_Final(self.ctx, out.as_mut_ptr(), &mut len) == 1
        };
        if !ok || len != 16 {
            return Err(PeerError::Library("CMAC failed".to_string()));
        }
        Ok(out)
    }
}

impl Drop for OpensslCmac {
    fn drop(&mut self) {
        // SAFETY: `ctx` came from CMAC_CTX_new and is freed only here
        // (CMAC_CTX_free cleanses the key schedule).
        unsafe { ffi::CMAC_CTX_free(self.ctx) }
    }
}
