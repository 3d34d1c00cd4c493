//! Intel's ipsec-mb (Debian `libipsec-mb-dev`, 1.x) as a CCMP and GCMP
//! peer. CCM runs through its multi-buffer job manager, initialised for
//! the best code path of this CPU (`init_mb_mgr_auto`) or a chosen one
//! (`init_mb_mgr_avx2`, ...), filled with one AES-CCM job per message
//! (`IMB_GET_NEXT_JOB`, `IMB_SUBMIT_JOB`) and flushed (`IMB_FLUSH_JOB`)
//! at the end of each batch. AES-GCM, a single-buffer algorithm in
//! ipsec-mb, runs through the manager's direct GCM functions
//! (`IMB_AES128_GCM_ENC`, ...) with the key precomputed once
//! (`IMB_AES128_GCM_PRE`).
//!
//! The job API is a set of C macros over function pointers inside the
//! library's `IMB_MGR` struct, so the calls go through a small C shim
//! (`shim/ipsec_mb_shim.c`, compiled against the installed header by the
//! build script): the struct layouts stay the header's business and the
//! Rust side only passes plain pointers and lengths.

use crate::{Availability, CcmMsg, CcmPeer, PeerError};

/// Name of the CCM peer on the best code path.
pub const NAME: &str = "ipsec-mb";
/// Name of the CCM peer forced to the AVX2 code path.
pub const NAME_AVX2: &str = "ipsec-mb-avx2";
/// Name of the GCM peer on the best code path.
pub const GCM_NAME: &str = "ipsec-mb-gcm";
/// Name of the GCM peer forced to the AVX2 code path.
pub const GCM_NAME_AVX2: &str = "ipsec-mb-gcm-avx2";

/// Which code path the manager is initialised for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    /// The best this CPU runs (`init_mb_mgr_auto`).
    Best,
    /// SSE (`init_mb_mgr_sse`).
    Sse,
    /// AVX2 (`init_mb_mgr_avx2`): what a CPU without AVX-512 gets.
    Avx2,
    /// AVX-512 (`init_mb_mgr_avx512`).
    Avx512,
}

impl Arch {
    /// The `IMB_ARCH` value of `intel-ipsec-mb.h` (0 for "best").
    #[cfg_attr(not(wisec_ipsec_mb), allow(dead_code))]
    fn raw(self) -> i32 {
        match self {
            Arch::Best => 0,
            Arch::Sse => 2,
            Arch::Avx2 => 4,
            Arch::Avx512 => 5,
        }
    }
}

/// Longest AAD ipsec-mb's CCM accepts (CCMP's is at most 30 octets).
pub const MAX_AAD_LEN: usize = 46;

#[cfg(wisec_ipsec_mb)]
pub use imp::{availability_of, IpsecMbCcm, IpsecMbGcm};

#[cfg(not(wisec_ipsec_mb))]
pub use missing::{availability_of, IpsecMbCcm, IpsecMbGcm};

/// The library and the code path its manager picks on this CPU.
pub fn availability() -> Availability {
    availability_of(Arch::Best)
}

#[cfg(not(wisec_ipsec_mb))]
mod missing {
    use super::*;

    const REASON: &str = env!("WISEC_IPSEC_MB_MISSING");

    /// Missing in this build, with the reason the build script found.
    pub fn availability_of(_arch: Arch) -> Availability {
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

        /// Always fails: ipsec-mb was not available at build time.
        pub fn with_arch(_key: &[u8], _arch: Arch) -> Result<IpsecMbCcm, PeerError> {
            Err(PeerError::Library(REASON.to_string()))
        }
    }

    /// Not built: every constructor call fails.
    pub struct IpsecMbGcm {
        _never: core::convert::Infallible,
    }

    impl IpsecMbGcm {
        /// Always fails: ipsec-mb was not available at build time.
        pub fn with_arch(_key: &[u8], _arch: Arch) -> Result<IpsecMbGcm, PeerError> {
            Err(PeerError::Library(REASON.to_string()))
        }
    }

    impl crate::GcmPeer for IpsecMbGcm {
        fn name(&self) -> &'static str {
            match self._never {}
        }
        fn seal(&mut self, _: &mut [crate::GcmMsg<'_>]) -> Result<(), PeerError> {
            match self._never {}
        }
        fn open(&mut self, _: &mut [crate::GcmMsg<'_>]) -> Result<(), PeerError> {
            match self._never {}
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
        fn wisec_imb_new(want: c_int, arch: *mut c_int) -> *mut c_void;
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
        fn wisec_imb_gcm_key_size() -> u64;
        fn wisec_imb_gcm_pre(
            m: *mut c_void,
            key: *const u8,
            key_len: u64,
            kd: *mut c_void,
        ) -> c_int;
        fn wisec_imb_gcm(
            m: *mut c_void,
            kd: *const c_void,
            key_len: u64,
            encrypt: c_int,
            msgs: *const RawGcmMsg,
            n: u64,
        );
    }

    /// Mirrors `struct wisec_imb_gcm_msg` of the shim.
    #[repr(C)]
    struct RawGcmMsg {
        src: *const u8,
        dst: *mut u8,
        len: u64,
        iv: *const u8,
        aad: *const u8,
        aad_len: u64,
        tag: *mut u8,
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
        fn new(want: Arch) -> Result<Mgr, PeerError> {
            let mut arch: c_int = 0;
            // SAFETY: `arch` is a valid out-pointer; the shim returns NULL
            // or a manager it initialised, which `Drop` frees once.
            let ptr = unsafe { wisec_imb_new(want.raw(), &mut arch) };
            if ptr.is_null() {
                return Err(PeerError::Library(format!(
                    "alloc_mb_mgr/init_mb_mgr failed for the {want:?} code path \
                     (this CPU may lack it)"
                )));
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

    /// The library versions and the code path of a manager for `arch`.
    pub fn availability_of(arch: Arch) -> Availability {
        let (header, library) =
            // SAFETY: the two functions take no arguments and return string
            // constants (see `cstr`).
            unsafe { (wisec_imb_header_version(), wisec_imb_library_version()) };
        match Mgr::new(arch) {
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
        /// Keys a new job manager on the best code path with a 16- or
        /// 32-octet key.
        pub fn new(key: &[u8]) -> Result<IpsecMbCcm, PeerError> {
            IpsecMbCcm::with_arch(key, Arch::Best)
        }

        /// Keys a new job manager on the code path `arch`.
        pub fn with_arch(key: &[u8], arch: Arch) -> Result<IpsecMbCcm, PeerError> {
            let tag_len = ccmp_tag_len(key.len())?;
            let mgr = Mgr::new(arch)?;
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
            if self.mgr.arch == Arch::Avx2.raw() {
                NAME_AVX2
            } else {
                NAME
            }
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

    /// The precomputed GCM key (`struct gcm_key_data`), 64-octet aligned
    /// as ipsec-mb requires; wiped on drop.
    struct GcmKey {
        ptr: *mut u8,
        layout: std::alloc::Layout,
    }

    impl GcmKey {
        fn new() -> Result<GcmKey, PeerError> {
            // SAFETY: the function takes no arguments and returns a size.
            let size = unsafe { wisec_imb_gcm_key_size() } as usize;
            let layout = std::alloc::Layout::from_size_align(size.max(1), 64)
                .map_err(|_| PeerError::Library("gcm_key_data layout".to_string()))?;
            // SAFETY: the layout has a non-zero size.
            let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
            if ptr.is_null() {
                return Err(PeerError::Library("out of memory".to_string()));
            }
            Ok(GcmKey { ptr, layout })
        }
    }

    impl Drop for GcmKey {
        fn drop(&mut self) {
            // SAFETY: `ptr` was allocated with `layout` in `new` and is
            // valid for `layout.size()` writes; it is freed only here.
            unsafe {
                std::ptr::write_bytes(self.ptr, 0, self.layout.size());
                std::hint::black_box(self.ptr);
                std::alloc::dealloc(self.ptr, self.layout);
            }
        }
    }

    /// ipsec-mb's AES-GCM, keyed.
    pub struct IpsecMbGcm {
        mgr: Mgr,
        key: GcmKey,
        key_len: usize,
        raw: Vec<RawGcmMsg>,
        tags: Vec<[u8; 16]>,
    }

    impl IpsecMbGcm {
        /// Keys GCM with a 16- or 32-octet key on the code path `arch`.
        pub fn with_arch(key: &[u8], arch: Arch) -> Result<IpsecMbGcm, PeerError> {
            if key.len() != 16 && key.len() != 32 {
                return Err(PeerError::InvalidParameter("key must be 16 or 32 octets"));
            }
            let mgr = Mgr::new(arch)?;
            let kd = GcmKey::new()?;
            // SAFETY: `key` holds 16 or 32 octets (checked above); `kd` is
            // a 64-aligned `struct gcm_key_data` the library writes; the
            // manager is live.
            let r = unsafe {
                wisec_imb_gcm_pre(mgr.ptr, key.as_ptr(), key.len() as u64, kd.ptr.cast())
            };
            if r != 0 {
                return Err(PeerError::InvalidParameter("key length"));
            }
            Ok(IpsecMbGcm {
                mgr,
                key: kd,
                key_len: key.len(),
                raw: Vec::new(),
                tags: Vec::new(),
            })
        }

        fn run(&mut self, msgs: &mut [crate::GcmMsg<'_>], encrypt: bool) -> Result<(), PeerError> {
            self.raw.clear();
            if !encrypt {
                self.tags.clear();
                self.tags.resize(msgs.len(), [0; 16]);
            }
            for (i, m) in msgs.iter_mut().enumerate() {
                check_msg(m, crate::GCM_TAG_LEN)?;
                let tag = if encrypt {
                    m.tag.as_mut_ptr()
                } else {
                    self.tags[i].as_mut_ptr()
                };
                self.raw.push(RawGcmMsg {
                    src: m.input.as_ptr(),
                    dst: m.output.as_mut_ptr(),
                    len: m.input.len() as u64,
                    iv: m.nonce.as_ptr(),
                    aad: m.aad.as_ptr(),
                    aad_len: m.aad.len() as u64,
                    tag,
                });
            }
            // SAFETY: every pointer in `raw` points into a live borrow of
            // `msgs` (or into `self.tags`, sized above) with the length
            // stored beside it: `src`/`dst` have `len` octets (checked
            // equal by `check_msg`), `iv` 12, `aad` `aad_len`, `tag` 16.
            // Input and output do not overlap (one is `&`, the other
            // `&mut`). The shim returns after the last message; the
            // library keeps no pointer. `key` holds the precomputed key of
            // `key_len` octets.
            unsafe {
                wisec_imb_gcm(
                    self.mgr.ptr,
                    self.key.ptr.cast_const().cast(),
                    self.key_len as u64,
                    c_int::from(encrypt),
                    self.raw.as_ptr(),
                    self.raw.len() as u64,
                )
            };
            self.raw.clear();
            Ok(())
        }
    }

    impl crate::GcmPeer for IpsecMbGcm {
        fn name(&self) -> &'static str {
            if self.mgr.arch == Arch::Avx2.raw() {
                GCM_NAME_AVX2
            } else {
                GCM_NAME
            }
        }

        fn seal(&mut self, msgs: &mut [crate::GcmMsg<'_>]) -> Result<(), PeerError> {
            self.run(msgs, true)
        }

        fn open(&mut self, msgs: &mut [crate::GcmMsg<'_>]) -> Result<(), PeerError> {
            self.run(msgs, false)?;
            let mut first_bad = None;
            for (i, m) in msgs.iter_mut().enumerate() {
                if !bool::from(self.tags[i][..].ct_eq(m.tag)) {
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
