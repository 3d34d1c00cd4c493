//! Intel's ipsec-mb (Debian `libipsec-mb-dev`, 1.x) as a CCMP peer: its
//! multi-buffer job manager, initialised for the best code path of this
//! CPU (`init_mb_mgr_auto`), filled with one AES-CCM job per message
//! (`IMB_GET_NEXT_JOB`, `IMB_SUBMIT_JOB`) and flushed (`IMB_FLUSH_JOB`)
//! at the end of each batch.
//!
//! The job API is a set of C macros over function pointers inside the
//! library's `IMB_MGR` struct, so the calls go through a small C shim
//! (`shim/ipsec_mb_shim.c`, compiled against the installed header by the
//! build script): the struct layouts stay the header's business and the
//! Rust side only passes plain pointers and lengths.

use crate::{Availability, CcmMsg, CcmPeer, PeerError};

/// Name of this peer.
pub const NAME: &str = "ipsec-mb";

/// Longest AAD ipsec-mb's CCM accepts (CCMP's is at most 30 octets).
pub const MAX_AAD_LEN: usize = 46;

#[cfg(wisec_ipsec_mb)]
pub use imp::{availability, IpsecMbCcm};

#[cfg(not(wisec_ipsec_mb))]
pub use missing::{availability, IpsecMbCcm};

#[cfg(not(wisec_ipsec_mb))]
mod missing {
    use super::*;

    const REASON: &str = env!("WISEC_IPSEC_MB_MISSING");

    /// Missing in this build, with the reason the build script found.
    pub fn availability() -> Availability {
        Availability::Missing {
            reason: REASON.to_string(),
        }
    }

    /// Not built: every constructor call fails.
    pub struct IpsecMbCcm {
        _never: core::convert::Infallible,
    }

    impl IpsecMbCcm {
        /// Always fails: ipsec-mb was not available at build time.
        pub fn new(_key: &[u8]) -> Result<IpsecMbCcm, PeerError> {
            Err(PeerError::Library(REASON.to_string()))
        }
    }

    impl CcmPeer for IpsecMbCcm {
        fn name(&self) -> &'static str {
            NAME
        }
        fn tag_len(&self) -> usize {
            match self._never {}
        }
        fn seal(&mut self, _: &mut [CcmMsg<'_>]) -> Result<(), PeerError> {
            match self._never {}
        }
        fn open(&mut self, _: &mut [CcmMsg<'_>]) -> Result<(), PeerError> {
            match self._never {}
        }
    }
}

#[cfg(wisec_ipsec_mb)]
mod imp {
    use super::*;
    use crate::{ccmp_tag_len, check_msg, NONCE_LEN};
    use std::ffi::{c_char, c_int, c_void, CStr};
    use subtle::ConstantTimeEq;

    /// Mirrors `struct wisec_imb_ccm_msg` of the shim.
    #[repr(C)]
    struct RawMsg {
        src: *const u8,
        dst: *mut u8,
        len: u64,
        nonce: *const u8,
        nonce_len: u64,
        aad: *const u8,
        aad_len: u64,
        tag: *mut u8,
    }

    extern "C" {
        fn wisec_imb_header_version() -> *const c_char;
        fn wisec_imb_library_version() -> *const c_char;
        fn wisec_imb_new(arch: *mut c_int) -> *mut c_void;
        fn wisec_imb_free(m: *mut c_void);
        fn wisec_imb_keyexp(
            m: *mut c_void,
            key: *const u8,
            key_len: u64,
            enc: *mut c_void,
            dec: *mut c_void,
        ) -> c_int;
        fn wisec_imb_ccm(
            m: *mut c_void,
            enc_keys: *const c_void,
            key_len: u64,
            encrypt: c_int,
            tag_len: u64,
            msgs: *const RawMsg,
            n: u64,
        ) -> i64;
    }

    fn cstr(p: *const c_char) -> String {
        if p.is_null() {
            return "?".to_string();
        }
        // SAFETY: both shim functions return pointers to NUL-terminated
        // string constants of the header or the library, valid for the
        // life of the process.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    fn arch_name(arch: c_int) -> &'static str {
        // IMB_ARCH of intel-ipsec-mb.h.
        match arch {
            1 => "no-AESNI",
            2 => "SSE",
            3 => "AVX",
            4 => "AVX2",
            5 => "AVX512",
            _ => "unknown",
        }
    }

    /// Owns an `IMB_MGR` allocated by `alloc_mb_mgr`.
    struct Mgr {
        ptr: *mut c_void,
        arch: c_int,
    }

    impl Mgr {
        fn new() -> Result<Mgr, PeerError> {
            let mut arch: c_int = 0;
            // SAFETY: `arch` is a valid out-pointer; the shim returns NULL
            // or a manager it initialised, which `Drop` frees once.
            let ptr = unsafe { wisec_imb_new(&mut arch) };
            if ptr.is_null() {
                return Err(PeerError::Library(
                    "alloc_mb_mgr/init_mb_mgr_auto failed".to_string(),
                ));
            }
            Ok(Mgr { ptr, arch })
        }
    }

    impl Drop for Mgr {
        fn drop(&mut self) {
            // SAFETY: `ptr` came from `wisec_imb_new` and is freed only here.
            unsafe { wisec_imb_free(self.ptr) }
        }
    }

    /// Expanded AES keys: 15 round keys of 16 octets, 16-octet aligned as
    /// ipsec-mb requires.
    #[repr(C, align(64))]
    struct ExpKeys([u8; 16 * 15]);

    impl Drop for ExpKeys {
        fn drop(&mut self) {
            // Wipe the key schedule; `black_box` keeps the stores.
            self.0.fill(0);
            std::hint::black_box(&self.0);
        }
    }

    /// The library versions and the code path the manager picks here.
    pub fn availability() -> Availability {
        let (header, library) =
            // SAFETY: the two functions take no arguments and return string
            // constants (see `cstr`).
            unsafe { (wisec_imb_header_version(), wisec_imb_library_version()) };
        match Mgr::new() {
            Ok(m) => Availability::Available {
                version: format!("Intel ipsec-mb {}", cstr(library)),
                detail: format!(
                    "multi-buffer job manager, {} code path (built against header {})",
                    arch_name(m.arch),
                    cstr(header)
                ),
            },
            Err(e) => Availability::Missing {
                reason: format!("libIPSec_MB is linked but unusable: {e}"),
            },
        }
    }

    /// ipsec-mb's multi-buffer AES-CCM, keyed.
    pub struct IpsecMbCcm {
        mgr: Mgr,
        enc: Box<ExpKeys>,
        // Only written by the key expansion; CCM uses the encryption keys.
        _dec: Box<ExpKeys>,
        key_len: usize,
        tag_len: usize,
        raw: Vec<RawMsg>,
        tags: Vec<[u8; 16]>,
    }

    impl IpsecMbCcm {
        /// Keys a new job manager with a 16- or 32-octet key.
        pub fn new(key: &[u8]) -> Result<IpsecMbCcm, PeerError> {
            let tag_len = ccmp_tag_len(key.len())?;
            let mgr = Mgr::new()?;
            let mut enc = Box::new(ExpKeys([0; 240]));
            let mut dec = Box::new(ExpKeys([0; 240]));
            // SAFETY: `key` holds `key.len()` octets (16 or 32, checked
            // above); `enc` and `dec` are 240 octets, 64-aligned, enough
            // for the 15 round keys of AES-256; the manager is live.
            let r = unsafe {
                wisec_imb_keyexp(
                    mgr.ptr,
                    key.as_ptr(),
                    key.len() as u64,
                    enc.0.as_mut_ptr().cast(),
                    dec.0.as_mut_ptr().cast(),
                )
            };
            if r != 0 {
                return Err(PeerError::InvalidParameter("key length"));
            }
            Ok(IpsecMbCcm {
                mgr,
                enc,
                _dec: dec,
                key_len: key.len(),
                tag_len,
                raw: Vec::new(),
                tags: Vec::new(),
            })
        }

        /// Runs the batch through the manager; `tags` (if given) receive
        /// the MICs instead of the messages' own tag fields.
        fn run(&mut self, msgs: &mut [CcmMsg<'_>], encrypt: bool) -> Result<(), PeerError> {
            self.raw.clear();
            if !encrypt {
                self.tags.clear();
                self.tags.resize(msgs.len(), [0; 16]);
            }
            for (i, m) in msgs.iter_mut().enumerate() {
                check_msg(m, self.tag_len)?;
                if m.aad.len() > MAX_AAD_LEN {
                    return Err(PeerError::InvalidParameter("AAD longer than 46 octets"));
                }
                let tag = if encrypt {
                    m.tag.as_mut_ptr()
                } else {
                    self.tags[i].as_mut_ptr()
                };
                self.raw.push(RawMsg {
                    src: m.input.as_ptr(),
                    dst: m.output.as_mut_ptr(),
                    len: m.input.len() as u64,
                    nonce: m.nonce.as_ptr(),
                    nonce_len: NONCE_LEN as u64,
                    aad: m.aad.as_ptr(),
                    aad_len: m.aad.len() as u64,
                    tag,
                });
            }
            // SAFETY: every pointer in `raw` points into a live borrow of
            // `msgs` (or into `self.tags`, sized above) with the length
            // stored beside it: `src`/`dst` have `len` octets (checked
            // equal by `check_msg`), `nonce` 13, `aad` `aad_len`, `tag`
            // at least `tag_len`. Input and output slices cannot overlap
            // (one is `&`, the other `&mut`). The shim submits and
            // flushes every job before it returns, so the library keeps
            // no pointer past this call. `enc` holds the expanded key of
            // `key_len` octets.
            let r = unsafe {
                wisec_imb_ccm(
                    self.mgr.ptr,
                    self.enc.0.as_ptr().cast(),
                    self.key_len as u64,
                    c_int::from(encrypt),
                    self.tag_len as u64,
                    self.raw.as_ptr(),
                    self.raw.len() as u64,
                )
            };
            self.raw.clear();
            if r >= 0 {
                return Err(PeerError::Library(format!("job {r} did not complete")));
            }
            Ok(())
        }
    }

    impl CcmPeer for IpsecMbCcm {
        fn name(&self) -> &'static str {
            NAME
        }

        fn tag_len(&self) -> usize {
            self.tag_len
        }

        fn seal(&mut self, msgs: &mut [CcmMsg<'_>]) -> Result<(), PeerError> {
            self.run(msgs, true)
        }

        fn open(&mut self, msgs: &mut [CcmMsg<'_>]) -> Result<(), PeerError> {
            if let Err(e) = self.run(msgs, false) {
                for m in msgs.iter_mut() {
                    m.output.fill(0);
                }
                return Err(e);
            }
            let mut first_bad = None;
            for (i, m) in msgs.iter_mut().enumerate() {
                let computed = &self.tags[i][..self.tag_len];
                if !bool::from(computed.ct_eq(m.tag)) {
                    m.output.fill(0);
                    first_bad.get_or_insert(i);
                }
            }
            match first_bad {
                Some(index) => Err(PeerError::Integrity { index }),
                None => Ok(()),
            }
        }
    }
}
