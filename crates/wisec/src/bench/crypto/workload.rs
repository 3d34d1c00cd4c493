//! The frames each suite is measured on, and the closures that process
//! them: one call processes every frame of the batch once.

use std::cell::RefCell;
use std::hint::black_box;
use std::rc::Rc;
use wisec_crypto::batch::{FrameBuf, Path};
use wisec_crypto::ccmp::{self, Ccmp128, Ccmp256};
use wisec_crypto::cmac::AesCmac;
use wisec_crypto::gcmp::{self, Gcmp128, Gcmp256};
use wisec_crypto::icbc::ExperimentalIcbcCcmp128;
use wisec_crypto::suite::{BipKey, DataKey, Suite};
use wisec_crypto::FrameProtector;
use wisec_peers::{AeadMsg, CcmPeer, GcmPeer, PeerError, Rc4Msg, Rc4Peer};
use wisec_wire::mac_header::Header;

/// Length of the MAC headers used: a non-QoS data frame (AAD of 22
/// octets, as in the reference figures of DESIGN.md) and a management
/// frame.
pub const HEADER_LEN: usize = 24;

/// Protect (seal, MAC) or unprotect (open, verify).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    /// Protect a plaintext frame.
    Protect,
    /// Verify and decrypt a protected frame.
    Unprotect,
}

impl Op {
    /// `protect` or `unprotect`.
    pub const fn name(self) -> &'static str {
        match self {
            Op::Protect => "protect",
            Op::Unprotect => "unprotect",
        }
    }
}

/// One call: processes every frame of the batch once.
pub type RunFn = Box<dyn FnMut() -> Result<(), String>>;

/// A closure to time, with what it measures.
pub struct Job {
    /// The operation.
    pub op: Op,
    /// The timed closure.
    pub run: RunFn,
    /// Untimed set-up before each timed call: brings in-place buffers
    /// back to the state the call starts from (see [`batch_jobs`]).
    pub prep: Option<RunFn>,
}

/// The test key: octets 0x00, 0x01, ...
pub fn key(len: usize) -> Vec<u8> {
    (0..len).map(|i| i as u8).collect()
}

/// Deterministic filler for frame bodies (xorshift64).
fn filler(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// A plaintext data MPDU, To DS (STA to AP), with a `body`-octet body:
/// the frame the data suites and the CCM peers are measured on.
pub fn data_frame(i: usize, body: usize) -> Vec<u8> {
    let mut f = vec![0x08, 0x01, 0x2c, 0x00];
    f.extend_from_slice(&[0x02, 0x00, 0x00, 0x00, 0x00, 0x01]); // A1 BSSID
    f.extend_from_slice(&[0x02, 0x00, 0x00, 0x00, 0x00, 0x02]); // A2 SA
    f.extend_from_slice(&[0x02, 0x00, 0x00, 0x00, 0x00, 0x03]); // A3 DA
    f.extend_from_slice(&((i as u16) << 4).to_le_bytes()); // SC
    f.extend_from_slice(&filler(i as u64 + 1, body));
    f
}

/// A group-addressed Action frame with a `body`-octet body: what BIP and
/// the DiscoSec AES-CMAC are measured on.
pub fn mgmt_frame(i: usize, body: usize) -> Vec<u8> {
    let mut f = vec![0xd0, 0x00, 0x00, 0x00];
    f.extend_from_slice(&[0xff; 6]); // A1 broadcast
    f.extend_from_slice(&[0x02, 0x00, 0x00, 0x00, 0x00, 0x01]); // A2 (AP)
    f.extend_from_slice(&[0x02, 0x00, 0x00, 0x00, 0x00, 0x01]); // A3 BSSID
    f.extend_from_slice(&((i as u16) << 4).to_le_bytes());
    f.extend_from_slice(&filler(i as u64 + 1000, body));
    f
}

/// The packet number of frame `i`.
pub fn pn(i: usize) -> u64 {
    i as u64 + 1
}

fn err(what: &str, e: impl std::fmt::Display) -> String {
    format!("{what}: {e}")
}

/// Protect and unprotect jobs for a data-frame suite, after checking that
/// every frame comes back from a round trip.
pub fn frame_protector<P: FrameProtector + 'static>(
    p: P,
    frames: &Rc<Vec<Vec<u8>>>,
) -> Result<Vec<Job>, String> {
    let p = Rc::new(p);
    let extra = p.overhead().total();
    let mut protected = Vec::with_capacity(frames.len());
    for (i, f) in frames.iter().enumerate() {
        let mut out = vec![0u8; f.len() + extra];
        let n = p
            .protect(f, pn(i), 0, &mut out)
            .map_err(|e| err("protect", e))?;
        out.truncate(n);
        let mut back = vec![0u8; n];
        let u = p
            .unprotect(&out, &mut back)
            .map_err(|e| err("unprotect", e))?;
        if back[..u.len()] != f[..] {
            return Err("unprotect did not give the plaintext back".to_string());
        }
        protected.push(out);
    }
    let (pp, fr) = (Rc::clone(&p), Rc::clone(frames));
    let mut outs: Vec<Vec<u8>> = fr.iter().map(|f| vec![0u8; f.len() + extra]).collect();
    let protect: RunFn = Box::new(move || {
        for (i, (f, o)) in fr.iter().zip(outs.iter_mut()).enumerate() {
            let n = pp.protect(f, pn(i), 0, o).map_err(|e| err("protect", e))?;
            black_box(&o[..n]);
        }
        Ok(())
    });
    let mut outs: Vec<Vec<u8>> = protected.iter().map(|f| vec![0u8; f.len()]).collect();
    let unprotect: RunFn = Box::new(move || {
        for (f, o) in protected.iter().zip(outs.iter_mut()) {
            let u = p.unprotect(f, o).map_err(|e| err("unprotect", e))?;
            black_box(&o[..u.len()]);
        }
        Ok(())
    });
    Ok(protect_unprotect(protect, unprotect))
}

/// The two timed jobs of a suite, neither with an untimed set-up.
fn protect_unprotect(protect: RunFn, unprotect: RunFn) -> Vec<Job> {
    vec![
        Job {
            op: Op::Protect,
            run: protect,
            prep: None,
        },
        Job {
            op: Op::Unprotect,
            run: unprotect,
            prep: None,
        },
    ]
}

/// Jobs for a data suite by name (WEP, TKIP, CCMP, GCMP).
pub fn data_suite(suite: Suite, frames: &Rc<Vec<Vec<u8>>>) -> Result<Vec<Job>, String> {
    let k = DataKey::new(suite, &key(suite.key_len())).map_err(|e| err("key", e))?;
    frame_protector(k, frames)
}

/// Jobs for seed 002's 2-way interleaved CBC-MAC variant.
pub fn icbc(frames: &Rc<Vec<Vec<u8>>>) -> Result<Vec<Job>, String> {
    let k = ExperimentalIcbcCcmp128::new(&key(16)).map_err(|e| err("key", e))?;
    frame_protector(k, frames)
}

/// Jobs for a BIP suite: protect appends the MME, unprotect verifies it.
pub fn bip(suite: Suite, frames: &Rc<Vec<Vec<u8>>>) -> Result<Vec<Job>, String> {
    let k = Rc::new(BipKey::new(suite, &key(suite.key_len())).map_err(|e| err("key", e))?);
    let extra = k.overhead().total();
    let mut protected = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        let mut buf = f.clone();
        buf.resize(f.len() + extra, 0);
        let n = k
            .protect_in_place(&mut buf, f.len(), pn(i), 4)
            .map_err(|e| err("protect", e))?;
        buf.truncate(n);
        k.verify(&buf).map_err(|e| err("verify", e))?;
        protected.push(buf);
    }
    let (kk, fr) = (Rc::clone(&k), Rc::clone(frames));
    let mut outs: Vec<Vec<u8>> = fr.iter().map(|f| vec![0u8; f.len() + extra]).collect();
    let protect: RunFn = Box::new(move || {
        for (i, (f, o)) in fr.iter().zip(outs.iter_mut()).enumerate() {
            o[..f.len()].copy_from_slice(f);
            let n = kk
                .protect_in_place(o, f.len(), pn(i), 4)
                .map_err(|e| err("protect", e))?;
            black_box(&o[..n]);
        }
        Ok(())
    });
    let verify: RunFn = Box::new(move || {
        for f in &protected {
            black_box(k.verify(f).map_err(|e| err("verify", e))?);
        }
        Ok(())
    });
    Ok(protect_unprotect(protect, verify))
}

/// Jobs for AES-128-CMAC over whole management frames (header and body,
/// 16-octet tag), the MAC of DiscoSec's frame authentication: protect
/// computes the tag, unprotect verifies it.
pub fn aes_cmac(frames: &Rc<Vec<Vec<u8>>>) -> Result<Vec<Job>, String> {
    let keyed = AesCmac::new(&key(16)).map_err(|e| err("key", e))?;
    let tags: Vec<[u8; 16]> = frames
        .iter()
        .map(|f| {
            let mut m = keyed.clone();
            m.update(f);
            m.finalize()
        })
        .collect();
    let (k1, fr) = (keyed.clone(), Rc::clone(frames));
    let mac: RunFn = Box::new(move || {
        for f in fr.iter() {
            let mut m = k1.clone();
            m.update(f);
            black_box(m.finalize());
        }
        Ok(())
    });
    let fr = Rc::clone(frames);
    let verify: RunFn = Box::new(move || {
        for (f, t) in fr.iter().zip(tags.iter()) {
            let mut m = keyed.clone();
            m.update(f);
            m.verify(t).map_err(|e| err("verify", e))?;
        }
        Ok(())
    });
    Ok(protect_unprotect(mac, verify))
}

/// Jobs for CCMP-128 on wisec's generic CCM (`wisec_crypto::ccm::Ccm`,
/// one RustCrypto `aes` block call at a time for the CBC-MAC, as the seed
/// 002 variant computes its MIC), with nonce and AAD built from the header
/// in every call. Checked against `Ccmp128` before timing.
pub fn ccmp_generic(frames: &Rc<Vec<Vec<u8>>>) -> Result<Vec<Job>, String> {
    let suite = Rc::new(Ccmp128::new(&key(16)).map_err(|e| err("key", e))?);
    let mut protected = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        let mut want = vec![0u8; f.len() + 16];
        let n = suite
            .protect(f, pn(i), 0, &mut want)
            .map_err(|e| err("protect", e))?;
        want.truncate(n);
        let (nonce, aad, body) = parts(f, pn(i), ccmp_nonce)?;
        let mut ct = body.clone();
        let mut mic = [0u8; 8];
        suite
            .ccm()
            .encrypt_in_place_detached(&nonce, &aad, &mut ct, &mut mic)
            .map_err(|e| err("ccm", e))?;
        if want[HEADER_LEN + 8..] != [&ct[..], &mic[..]].concat()[..] {
            return Err("generic CCM differs from CCMP-128".to_string());
        }
        protected.push((ct, mic));
    }
    let (s1, fr) = (Rc::clone(&suite), Rc::clone(frames));
    let mut outs: Vec<Vec<u8>> = fr.iter().map(|f| vec![0u8; f.len()]).collect();
    let protect: RunFn = Box::new(move || {
        for (i, (f, o)) in fr.iter().zip(outs.iter_mut()).enumerate() {
            let h = Header::new_checked(&f[..]).map_err(|e| err("header", e))?;
            let nonce = ccmp::nonce(&h, pn(i)).map_err(|e| err("nonce", e))?;
            let aad = ccmp::aad(&h).map_err(|e| err("aad", e))?;
            let (body, mic) = o.split_at_mut(f.len() - HEADER_LEN);
            body.copy_from_slice(&f[HEADER_LEN..]);
            s1.ccm()
                .encrypt_in_place_detached(&nonce, aad.as_bytes(), body, &mut mic[..8])
                .map_err(|e| err("ccm", e))?;
            black_box(&o[..]);
        }
        Ok(())
    });
    let fr = Rc::clone(frames);
    let mut outs: Vec<Vec<u8>> = fr.iter().map(|f| vec![0u8; f.len()]).collect();
    let unprotect: RunFn = Box::new(move || {
        for (i, ((f, o), (ct, mic))) in fr.iter().zip(outs.iter_mut()).zip(&protected).enumerate() {
            // The header is the plaintext frame's: only the Protected bit
            // differs, and the AAD sets it anyway (12.5.3.3.3).
            let h = Header::new_checked(&f[..]).map_err(|e| err("header", e))?;
            let nonce = ccmp::nonce(&h, pn(i)).map_err(|e| err("nonce", e))?;
            let aad = ccmp::aad(&h).map_err(|e| err("aad", e))?;
            let body = &mut o[..ct.len()];
            body.copy_from_slice(ct);
            suite
                .ccm()
                .decrypt_in_place_detached(&nonce, aad.as_bytes(), body, mic)
                .map_err(|e| err("ccm", e))?;
            black_box(&o[..]);
        }
        Ok(())
    });
    Ok(protect_unprotect(protect, unprotect))
}

/// The batch API of CCMP-128 and CCMP-256.
trait BatchCcmp: FrameProtector {
    fn protect_with(&self, path: Path, frames: &mut [FrameBuf<'_>]) -> wisec_crypto::Result<usize>;
    fn unprotect_with(
        &self,
        path: Path,
        frames: &mut [FrameBuf<'_>],
    ) -> wisec_crypto::Result<usize>;
}

macro_rules! batch_ccmp {
    ($t:ty) => {
        impl BatchCcmp for $t {
            fn protect_with(
                &self,
                path: Path,
                frames: &mut [FrameBuf<'_>],
            ) -> wisec_crypto::Result<usize> {
                self.protect_batch_with(path, frames)
            }
            fn unprotect_with(
                &self,
                path: Path,
                frames: &mut [FrameBuf<'_>],
            ) -> wisec_crypto::Result<usize> {
                self.unprotect_batch_with(path, frames)
            }
        }
    };
}
batch_ccmp!(Ccmp128);
batch_ccmp!(Ccmp256);

/// Jobs for the multi-frame CCMP engine on `path`: one call protects (or
/// unprotects) every frame in one batch. Before timing, its output is
/// checked to be bit-identical to the single-frame path's.
pub fn ccmp_batch(suite: Suite, path: Path, frames: &Rc<Vec<Vec<u8>>>) -> Result<Vec<Job>, String> {
    match suite {
        Suite::Ccmp128 => batch_jobs(
            Ccmp128::new(&key(16)).map_err(|e| err("key", e))?,
            path,
            frames,
        ),
        Suite::Ccmp256 => batch_jobs(
            Ccmp256::new(&key(32)).map_err(|e| err("key", e))?,
            path,
            frames,
        ),
        _ => Err(format!("no batch engine for {suite}")),
    }
}

fn batch_jobs<C: BatchCcmp + 'static>(
    c: C,
    path: Path,
    frames: &Rc<Vec<Vec<u8>>>,
) -> Result<Vec<Job>, String> {
    let c = Rc::new(c);
    let extra = c.overhead().total();
    // The single-frame path's output, which the batch must reproduce.
    let mut single = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        let mut out = vec![0u8; f.len() + extra];
        let n = c
            .protect(f, pn(i), 0, &mut out)
            .map_err(|e| err("protect", e))?;
        out.truncate(n);
        single.push(out);
    }
    let mut bufs: Vec<Vec<u8>> = frames.iter().map(|f| vec![0u8; f.len() + extra]).collect();
    for (b, f) in bufs.iter_mut().zip(frames.iter()) {
        b[..f.len()].copy_from_slice(f);
    }
    {
        let mut fb: Vec<FrameBuf<'_>> = bufs
            .iter_mut()
            .zip(frames.iter())
            .enumerate()
            .map(|(i, (b, f))| FrameBuf::to_protect(b, f.len(), pn(i), 0))
            .collect();
        let n = c
            .protect_with(path, &mut fb)
            .map_err(|e| err("protect_batch", e))?;
        if n != frames.len()
            || fb
                .iter()
                .zip(single.iter())
                .any(|(b, s)| b.frame() != &s[..])
        {
            return Err("batch output differs from the single-frame path".to_string());
        }
    }
    let mut back: Vec<Vec<u8>> = single.clone();
    {
        let mut fb: Vec<FrameBuf<'_>> =
            back.iter_mut().map(|b| FrameBuf::to_unprotect(b)).collect();
        let n = c
            .unprotect_with(path, &mut fb)
            .map_err(|e| err("unprotect_batch", e))?;
        if n != frames.len()
            || fb
                .iter()
                .zip(frames.iter())
                .any(|(b, f)| b.frame() != &f[..])
        {
            return Err("batch unprotect did not give the plaintext back".to_string());
        }
    }

    // Fairness: the peers seal out of place from an input that never
    // changes, so they pay no set-up between calls. The in-place batch
    // API overwrites its input, so every call must start again from the
    // plaintext (protect) or the protected frames (unprotect); that copy
    // is a benchmark artefact (a transmitter builds the frame in its
    // buffer once), so it runs untimed in `prep`. Each timed call still
    // does everything the API does: header checks, the CCMP header and
    // the 8-octet body shift, nonce and AAD from the header (which the
    // peers get ready-made), the MIC, and the FrameBuf bookkeeping.
    let tx = Rc::new(RefCell::new(bufs));
    let (t1, fr) = (Rc::clone(&tx), Rc::clone(frames));
    let protect_prep: RunFn = Box::new(move || {
        for (b, f) in t1.borrow_mut().iter_mut().zip(fr.iter()) {
            b[..f.len()].copy_from_slice(f);
        }
        Ok(())
    });
    let (cc, fr) = (Rc::clone(&c), Rc::clone(frames));
    let protect: RunFn = Box::new(move || {
        let mut bufs = tx.borrow_mut();
        let mut fb: Vec<FrameBuf<'_>> = Vec::with_capacity(bufs.len());
        fb.extend(
            bufs.iter_mut()
                .zip(fr.iter())
                .enumerate()
                .map(|(i, (b, f))| FrameBuf::to_protect(b, f.len(), pn(i), 0)),
        );
        let n = cc
            .protect_with(path, &mut fb)
            .map_err(|e| err("protect_batch", e))?;
        if n != fb.len() {
            return Err("protect_batch failed a frame".to_string());
        }
        black_box(&fb);
        Ok(())
    });
    let rx = Rc::new(RefCell::new(single.clone()));
    let r1 = Rc::clone(&rx);
    let unprotect_prep: RunFn = Box::new(move || {
        for (b, s) in r1.borrow_mut().iter_mut().zip(single.iter()) {
            b.copy_from_slice(s);
        }
        Ok(())
    });
    let unprotect: RunFn = Box::new(move || {
        let mut rx = rx.borrow_mut();
        let mut fb: Vec<FrameBuf<'_>> = rx.iter_mut().map(|b| FrameBuf::to_unprotect(b)).collect();
        let n = c
            .unprotect_with(path, &mut fb)
            .map_err(|e| err("unprotect_batch", e))?;
        if n != fb.len() {
            return Err("unprotect_batch failed a frame".to_string());
        }
        black_box(&fb);
        Ok(())
    });
    Ok(vec![
        Job {
            op: Op::Protect,
            run: protect,
            prep: Some(protect_prep),
        },
        Job {
            op: Op::Unprotect,
            run: unprotect,
            prep: Some(unprotect_prep),
        },
    ])
}

/// Jobs for GCMP on a chosen GCM code path (the suite row uses the
/// fastest).
pub fn gcmp_path(suite: Suite, path: Path, frames: &Rc<Vec<Vec<u8>>>) -> Result<Vec<Job>, String> {
    match suite {
        Suite::Gcmp128 => frame_protector(
            Gcmp128::with_path(&key(16), path).map_err(|e| err("key", e))?,
            frames,
        ),
        Suite::Gcmp256 => frame_protector(
            Gcmp256::with_path(&key(32), path).map_err(|e| err("key", e))?,
            frames,
        ),
        _ => Err(format!("{suite} has no GCM code paths")),
    }
}

/// Nonce, AAD and body of a plaintext data MPDU.
type Parts<const N: usize> = ([u8; N], Vec<u8>, Vec<u8>);

/// How a suite builds its nonce from the MAC header and PN.
type NonceFn<const N: usize> = fn(&Header<&[u8]>, u64) -> wisec_crypto::Result<[u8; N]>;

/// CCMP's nonce (12.5.3.3.4) as a [`NonceFn`].
fn ccmp_nonce(h: &Header<&[u8]>, pn: u64) -> wisec_crypto::Result<[u8; 13]> {
    ccmp::nonce(h, pn)
}

/// GCMP's nonce (12.5.5.3.4) as a [`NonceFn`].
fn gcmp_nonce(h: &Header<&[u8]>, pn: u64) -> wisec_crypto::Result<[u8; 12]> {
    gcmp::nonce(h, pn)
}

fn parts<const N: usize>(frame: &[u8], pn: u64, nonce: NonceFn<N>) -> Result<Parts<N>, String> {
    let h = Header::new_checked(frame).map_err(|e| err("header", e))?;
    let n = nonce(&h, pn).map_err(|e| err("nonce", e))?;
    let aad = ccmp::aad(&h)
        .map_err(|e| err("aad", e))?
        .as_bytes()
        .to_vec();
    Ok((n, aad, frame[h.header_len()..].to_vec()))
}

/// A CCM or GCM peer seen through one interface.
trait AeadPeer<const N: usize> {
    fn name(&self) -> &'static str;
    fn seal(&mut self, msgs: &mut [AeadMsg<'_, N>]) -> Result<(), PeerError>;
    fn open(&mut self, msgs: &mut [AeadMsg<'_, N>]) -> Result<(), PeerError>;
}

macro_rules! aead_peer {
    ($peer:ident, $n:literal) => {
        impl AeadPeer<$n> for Box<dyn $peer> {
            fn name(&self) -> &'static str {
                $peer::name(&**self)
            }
            fn seal(&mut self, msgs: &mut [AeadMsg<'_, $n>]) -> Result<(), PeerError> {
                $peer::seal(&mut **self, msgs)
            }
            fn open(&mut self, msgs: &mut [AeadMsg<'_, $n>]) -> Result<(), PeerError> {
                $peer::open(&mut **self, msgs)
            }
        }
    };
}
aead_peer!(CcmPeer, 13);
aead_peer!(GcmPeer, 12);

/// Jobs for a CCM peer on CCMP-128 framing: the same frames, nonces and
/// AADs as wisec's CCMP-128 (the peer gets nonce and AAD ready-made; wisec
/// builds them from the header in every call). Before timing, the peer's
/// ciphertext and MIC are checked to equal wisec's and the peer must open
/// wisec's frames.
pub fn ccm_peer(
    seal: Box<dyn CcmPeer>,
    open: Box<dyn CcmPeer>,
    frames: &Rc<Vec<Vec<u8>>>,
) -> Result<Vec<Job>, String> {
    let wisec = Ccmp128::new(&key(16)).map_err(|e| err("key", e))?;
    aead_peer(seal, open, &wisec, ccmp_nonce, "CCMP-128", frames)
}

/// Jobs for a GCM peer on GCMP framing with a `key_len`-octet key, checked
/// against wisec's GCMP-128 or GCMP-256 as [`ccm_peer`] is against CCMP.
pub fn gcm_peer(
    seal: Box<dyn GcmPeer>,
    open: Box<dyn GcmPeer>,
    key_len: usize,
    frames: &Rc<Vec<Vec<u8>>>,
) -> Result<Vec<Job>, String> {
    let k = key(key_len);
    match key_len {
        16 => {
            let wisec = Gcmp128::new(&k).map_err(|e| err("key", e))?;
            aead_peer(seal, open, &wisec, gcmp_nonce, "GCMP-128", frames)
        }
        _ => {
            let wisec = Gcmp256::new(&k).map_err(|e| err("key", e))?;
            aead_peer(seal, open, &wisec, gcmp_nonce, "GCMP-256", frames)
        }
    }
}

fn aead_peer<const N: usize, P: AeadPeer<N> + 'static>(
    mut seal: P,
    mut open: P,
    wisec: &dyn FrameProtector,
    nonce: NonceFn<N>,
    suite: &str,
    frames: &Rc<Vec<Vec<u8>>>,
) -> Result<Vec<Job>, String> {
    let tl = wisec.overhead().trailer;
    let extra = wisec.overhead().total();
    let mut ps = Vec::new();
    let mut cts = Vec::new();
    let mut mics = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        let p = parts(f, pn(i), nonce)?;
        let mut out = vec![0u8; f.len() + extra];
        let n = wisec
            .protect(f, pn(i), 0, &mut out)
            .map_err(|e| err("wisec", e))?;
        let body_at = HEADER_LEN + 8;
        cts.push(out[body_at..n - tl].to_vec());
        mics.push(out[n - tl..n].to_vec());
        ps.push(p);
    }
    // Equality with wisec, then a round trip through the peer's open.
    let mut outs: Vec<Vec<u8>> = ps.iter().map(|p| vec![0u8; p.2.len()]).collect();
    let mut tags: Vec<Vec<u8>> = ps.iter().map(|_| vec![0u8; tl]).collect();
    let bodies: Vec<&[u8]> = ps.iter().map(|p| &p.2[..]).collect();
    run_peer(&mut seal, &ps, &bodies, &mut outs, &mut tags, true).map_err(|e| err("seal", e))?;
    if outs != cts || tags != mics {
        return Err(format!(
            "{}: ciphertext or MIC differs from wisec's {suite}",
            seal.name()
        ));
    }
    let ct_refs: Vec<&[u8]> = cts.iter().map(|c| &c[..]).collect();
    run_peer(&mut open, &ps, &ct_refs, &mut outs, &mut tags, false).map_err(|e| err("open", e))?;
    if outs.iter().zip(ps.iter()).any(|(o, p)| *o != p.2) {
        return Err(format!(
            "{}: open did not give the plaintext back",
            open.name()
        ));
    }

    let ps = Rc::new(ps);
    let ps2 = Rc::clone(&ps);
    let mut s_outs = outs.clone();
    let mut s_tags = tags.clone();
    let seal_run: RunFn = Box::new(move || {
        let bodies: Vec<&[u8]> = ps2.iter().map(|p| &p.2[..]).collect();
        run_peer(&mut seal, &ps2, &bodies, &mut s_outs, &mut s_tags, true)
            .map_err(|e| err("seal", e))?;
        black_box(&s_outs);
        Ok(())
    });
    let open_run: RunFn = Box::new(move || {
        let ct_refs: Vec<&[u8]> = cts.iter().map(|c| &c[..]).collect();
        run_peer(&mut open, &ps, &ct_refs, &mut outs, &mut mics, false)
            .map_err(|e| err("open", e))?;
        black_box(&outs);
        Ok(())
    });
    Ok(protect_unprotect(seal_run, open_run))
}

fn run_peer<const N: usize, P: AeadPeer<N>>(
    p: &mut P,
    ps: &[Parts<N>],
    inputs: &[&[u8]],
    outs: &mut [Vec<u8>],
    tags: &mut [Vec<u8>],
    seal: bool,
) -> Result<(), PeerError> {
    let mut msgs: Vec<AeadMsg<'_, N>> = ps
        .iter()
        .zip(inputs.iter())
        .zip(outs.iter_mut())
        .zip(tags.iter_mut())
        .map(|(((p, input), output), tag)| AeadMsg {
            nonce: &p.0,
            aad: &p.1,
            input,
            output,
            tag,
        })
        .collect();
    if seal {
        p.seal(&mut msgs)
    } else {
        p.open(&mut msgs)
    }
}

/// Jobs for the RC4 peer on the RC4 work of WEP-104 frames: per frame,
/// RC4 keyed with IV || key (12.3.2.2) over body || ICV. Before timing,
/// the peer's output is checked to equal the encrypted part of wisec's
/// WEP-104 frames. Protect and unprotect are the same keystream XOR (over
/// the plaintext and the ciphertext). With `stream`, the peer is keyed
/// once and produces a continuing keystream over the same octets (the
/// cipher alone), checked against wisec's RC4 keystream.
pub fn rc4_peer(
    mut p: Box<dyn Rc4Peer>,
    stream: bool,
    frames: &Rc<Vec<Vec<u8>>>,
) -> Result<Vec<Job>, String> {
    let k13 = key(13);
    let wep = DataKey::new(Suite::Wep104, &k13).map_err(|e| err("key", e))?;
    let mut seeds = Vec::new();
    let mut plains = Vec::new();
    let mut cts = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        let mut out = vec![0u8; f.len() + 8];
        let n = wep
            .protect(f, pn(i), 0, &mut out)
            .map_err(|e| err("wep", e))?;
        let body = &f[HEADER_LEN..];
        let mut plain = body.to_vec();
        plain.extend_from_slice(&wisec_crypto::crc32::crc32(body).to_le_bytes());
        seeds.push([&out[HEADER_LEN..HEADER_LEN + 3], &k13[..]].concat());
        plains.push(plain);
        cts.push(out[HEADER_LEN + 4..n].to_vec());
    }
    let mut outs: Vec<Vec<u8>> = plains.iter().map(|x| vec![0u8; x.len()]).collect();
    if stream {
        p.set_stream_key(&seeds[0]).map_err(|e| err("rc4", e))?;
        let mut want: Vec<Vec<u8>> = plains.clone();
        let mut r = wisec_crypto::rc4::Rc4::new(&seeds[0]).map_err(|e| err("rc4", e))?;
        for (w, o) in want.iter_mut().zip(outs.iter_mut()) {
            r.apply_keystream(w);
            p.stream(&w.clone(), o).map_err(|e| err("rc4", e))?;
        }
        // Keystream XOR twice gives the plaintext back.
        if outs != plains {
            return Err(format!("{}: keystream differs from wisec's RC4", p.name()));
        }
        let p = Rc::new(RefCell::new(p));
        let run = |inputs: Vec<Vec<u8>>, p: Rc<RefCell<Box<dyn Rc4Peer>>>| -> RunFn {
            let mut outs: Vec<Vec<u8>> = inputs.iter().map(|x| vec![0u8; x.len()]).collect();
            Box::new(move || {
                let mut p = p.borrow_mut();
                for (i, o) in inputs.iter().zip(outs.iter_mut()) {
                    p.stream(i, o).map_err(|e| err("rc4", e))?;
                }
                black_box(&outs);
                Ok(())
            })
        };
        return Ok(protect_unprotect(run(plains, Rc::clone(&p)), run(cts, p)));
    }
    let apply = |p: &mut Box<dyn Rc4Peer>, inputs: &[Vec<u8>], outs: &mut [Vec<u8>]| {
        let mut msgs: Vec<Rc4Msg<'_>> = seeds
            .iter()
            .zip(inputs.iter())
            .zip(outs.iter_mut())
            .map(|((key, input), output)| Rc4Msg { key, input, output })
            .collect();
        p.apply(&mut msgs)
    };
    apply(&mut p, &plains, &mut outs).map_err(|e| err("rc4", e))?;
    if outs != cts {
        return Err(format!(
            "{}: output differs from the RC4 of wisec's WEP-104",
            p.name()
        ));
    }
    let p = Rc::new(RefCell::new(p));
    let seeds = Rc::new(seeds);
    let run = |inputs: Vec<Vec<u8>>,
               p: Rc<RefCell<Box<dyn Rc4Peer>>>,
               seeds: Rc<Vec<Vec<u8>>>|
     -> RunFn {
        let mut outs: Vec<Vec<u8>> = inputs.iter().map(|x| vec![0u8; x.len()]).collect();
        Box::new(move || {
            let mut msgs: Vec<Rc4Msg<'_>> = seeds
                .iter()
                .zip(inputs.iter())
                .zip(outs.iter_mut())
                .map(|((key, input), output)| Rc4Msg { key, input, output })
                .collect();
            p.borrow_mut().apply(&mut msgs).map_err(|e| err("rc4", e))?;
            black_box(&msgs);
            Ok(())
        })
    };
    Ok(protect_unprotect(
        run(plains, Rc::clone(&p), Rc::clone(&seeds)),
        run(cts, p, seeds),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_have_the_advertised_headers() {
        let f = data_frame(3, 100);
        let h = Header::new_checked(&f[..]).unwrap();
        assert_eq!(h.header_len(), HEADER_LEN);
        assert_eq!(f.len(), HEADER_LEN + 100);
        // 12.5.3.3.3: a non-QoS, three-address data frame has a 22-octet AAD.
        assert_eq!(ccmp::aad(&h).unwrap().len(), 22);
        let m = mgmt_frame(3, 100);
        assert_eq!(m.len(), HEADER_LEN + 100);
        assert_eq!(m[4], 0xff);
        assert_ne!(
            data_frame(1, 32)[HEADER_LEN..],
            data_frame(2, 32)[HEADER_LEN..]
        );
    }

    #[test]
    fn every_job_runs() {
        let frames = Rc::new((0..3).map(|i| data_frame(i, 40)).collect::<Vec<_>>());
        let mgmt = Rc::new((0..3).map(|i| mgmt_frame(i, 40)).collect::<Vec<_>>());
        let mut jobs = Vec::new();
        for s in [Suite::Wep40, Suite::Tkip, Suite::Ccmp256, Suite::Gcmp128] {
            jobs.extend(data_suite(s, &frames).unwrap());
        }
        jobs.extend(icbc(&frames).unwrap());
        jobs.extend(ccmp_generic(&frames).unwrap());
        jobs.extend(bip(Suite::BipGmac128, &mgmt).unwrap());
        jobs.extend(aes_cmac(&mgmt).unwrap());
        jobs.extend(ccmp_batch(Suite::Ccmp128, Path::Portable, &frames).unwrap());
        jobs.extend(ccmp_batch(Suite::Ccmp256, Path::best(), &frames).unwrap());
        let r = wisec_peers::rustcrypto::RustCryptoCcm::new(&key(16)).unwrap();
        let r2 = wisec_peers::rustcrypto::RustCryptoCcm::new(&key(16)).unwrap();
        jobs.extend(ccm_peer(Box::new(r), Box::new(r2), &frames).unwrap());
        for j in &mut jobs {
            for _ in 0..2 {
                if let Some(prep) = j.prep.as_mut() {
                    prep().unwrap();
                }
                (j.run)().unwrap();
            }
        }
    }

    #[test]
    fn a_peer_that_differs_is_refused() {
        // A CCM peer keyed differently from wisec's CCMP-128 must fail
        // the equality check rather than be timed.
        let frames = Rc::new((0..2).map(|i| data_frame(i, 40)).collect::<Vec<_>>());
        let other = |b: u8| wisec_peers::rustcrypto::RustCryptoCcm::new(&[b; 16]).unwrap();
        let e = ccm_peer(Box::new(other(9)), Box::new(other(9)), &frames)
            .err()
            .unwrap();
        assert!(e.contains("differs"), "{e}");
    }

    #[test]
    fn oversized_bip_frames_are_an_error_not_a_panic() {
        // Body + MME above the 2304-octet MMPDU limit.
        let mgmt = Rc::new(vec![mgmt_frame(0, 2304)]);
        assert!(bip(Suite::BipCmac128, &mgmt).is_err());
    }
}
