//! The cipher suites on whole MPDUs, replay counters, and the RSN key
//! hierarchy (PSK, PTK, PMKID, EAPOL-Key MIC), for Python.

use crate::args::{akm_of, bytes_of, cipher_of, mac_of, suite_of, type_name};
use crate::{guard, IntegrityError, ReplayError};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use std::sync::Mutex;
use wisec_crypto::eapol_mic::{self as mic, MicAlgorithm, MIC_OFFSET};
use wisec_crypto::ptk::{KeyHierarchy, Ptk as RsnPtk};
use wisec_crypto::replay::{ReplayCounter as Counter, ReplayCounters as Counters, ReplaySlot};
use wisec_crypto::suite::{BipKey as RsnBipKey, DataKey as RsnDataKey, Suite};
use wisec_crypto::{kdf, wep, Error, FrameProtector};
use wisec_wire::element::OUI_MICROSOFT;
use wisec_wire::security::PN_MAX;
use zeroize::Zeroizing;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<DataKey>()?;
    m.add_class::<BipKey>()?;
    m.add_class::<Unprotected>()?;
    m.add_class::<ReplayCounter>()?;
    m.add_class::<ReplayCounters>()?;
    m.add_class::<Ptk>()?;
    m.add_function(wrap_pyfunction!(suites, m)?)?;
    m.add_function(wrap_pyfunction!(suite_info, m)?)?;
    m.add_function(wrap_pyfunction!(psk, m)?)?;
    m.add_function(wrap_pyfunction!(derive_ptk, m)?)?;
    m.add_function(wrap_pyfunction!(pmkid, m)?)?;
    m.add_function(wrap_pyfunction!(mic_algorithm, m)?)?;
    m.add_function(wrap_pyfunction!(eapol_mic, m)?)?;
    m.add_function(wrap_pyfunction!(eapol_sign, m)?)?;
    m.add_function(wrap_pyfunction!(eapol_verify, m)?)?;
    Ok(())
}

/// The exception of a suite's error on `frame`.
fn frame_error(e: Error) -> PyErr {
    match e {
        Error::Integrity => IntegrityError::new_err("integrity check failed (MIC, tag or ICV)"),
        Error::Malformed => PyValueError::new_err(
            "frame: malformed frame (too short for the suite, a MAC header that cannot be \
delimited, or a missing or wrong security header)",
        ),
        Error::Unsupported => PyValueError::new_err("frame: unsupported frame"),
        Error::BufferTooSmall => PyValueError::new_err("frame: too long"),
        Error::InvalidParameter => PyValueError::new_err("invalid key or parameter"),
    }
}

/// The suite and key of a `DataKey` (`bip` false) or `BipKey`, the key's
/// length checked with the message of `wisec encrypt --key`.
fn key_of(suite: &str, key: &Bound<'_, PyAny>, bip: bool) -> PyResult<(Suite, Zeroizing<Vec<u8>>)> {
    let s = suite_of("suite", suite)?;
    if s.is_bip() != bip {
        return Err(PyValueError::new_err(if bip {
            format!("suite: {s} is not a BIP suite; use DataKey")
        } else {
            format!("suite: {s} protects management frames only; use BipKey")
        }));
    }
    let k = Zeroizing::new(bytes_of("key", key)?);
    if k.len() != s.key_len() {
        return Err(PyValueError::new_err(format!(
            "key: a {} key has {} bytes, this one has {}",
            s.standard_name(),
            s.key_len(),
            k.len()
        )));
    }
    Ok((s, k))
}

/// A temporal key of one data suite (WEP-40/104, TKIP, CCMP-128/256,
/// GCMP-128/256), protecting and unprotecting whole MPDUs.
#[pyclass(frozen, module = "wisec")]
pub struct DataKey {
    key: RsnDataKey,
}

#[pymethods]
impl DataKey {
    #[new]
    fn new(suite: &str, key: &Bound<'_, PyAny>) -> PyResult<DataKey> {
        let (s, k) = key_of(suite, key, false)?;
        let key = RsnDataKey::new(s, &k).map_err(|e| PyValueError::new_err(format!("key: {e}")))?;
        Ok(DataKey { key })
    }

    /// The suite's canonical name (`ccmp128`, ...).
    #[getter]
    fn suite(&self) -> &'static str {
        self.key.suite().name()
    }

    /// (security header, trailer) octets the suite adds to an MPDU.
    #[getter]
    fn overhead(&self) -> (usize, usize) {
        let o = self.key.overhead();
        (o.header, o.trailer)
    }

    /// Protects the plaintext MPDU `frame` (MAC header and body, no FCS):
    /// inserts the security header with packet number `pn` and `key_id`,
    /// encrypts the body, appends the MIC/ICV and sets the Protected bit.
    #[pyo3(signature = (frame, pn, key_id = 0))]
    fn protect<'py>(
        &self,
        py: Python<'py>,
        frame: &Bound<'py, PyAny>,
        pn: u64,
        key_id: u8,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let f = bytes_of("frame", frame)?;
        let s = self.key.suite();
        let max = if s.is_danger() && s != Suite::Tkip {
            wep::IV_MAX
        } else {
            PN_MAX
        };
        if pn > max {
            return Err(PyValueError::new_err(format!(
                "pn: {pn} exceeds the {}-bit maximum {max}",
                if max == PN_MAX { 48 } else { 24 }
            )));
        }
        if key_id > 3 {
            return Err(PyValueError::new_err(format!(
                "key_id: {key_id} is not in 0..=3"
            )));
        }
        guard("DataKey.protect", || {
            let mut out = vec![0u8; f.len() + self.key.overhead().total()];
            let n = self
                .key
                .protect(&f, pn, key_id, &mut out)
                .map_err(frame_error)?;
            Ok(PyBytes::new(py, out.get(..n).unwrap_or_default()))
        })
    }

    /// Unprotects the protected MPDU `frame`: checks its MIC/ICV, decrypts
    /// the body and removes the security header and trailer. Raises
    /// `IntegrityError` when it does not verify. Replays are the caller's
    /// to check, with `ReplayCounter.accept(result)`.
    fn unprotect(&self, py: Python<'_>, frame: &Bound<'_, PyAny>) -> PyResult<Unprotected> {
        let mut buf = Zeroizing::new(bytes_of("frame", frame)?);
        guard("DataKey.unprotect", || {
            let u = self.key.unprotect_in_place(&mut buf).map_err(frame_error)?;
            Ok(Unprotected {
                frame: PyBytes::new(py, buf.get(..u.len()).unwrap_or_default()).unbind(),
                proof: u,
            })
        })
    }

    fn __repr__(&self) -> String {
        format!("DataKey('{}', <key>)", self.key.suite().name())
    }
}

/// An integrity group temporal key (IGTK) of one BIP suite: adds and
/// verifies the Management MIC element of group-addressed robust
/// management frames.
#[pyclass(frozen, module = "wisec")]
pub struct BipKey {
    key: RsnBipKey,
}

#[pymethods]
impl BipKey {
    #[new]
    fn new(suite: &str, key: &Bound<'_, PyAny>) -> PyResult<BipKey> {
        let (s, k) = key_of(suite, key, true)?;
        let key = RsnBipKey::new(s, &k).map_err(|e| PyValueError::new_err(format!("key: {e}")))?;
        Ok(BipKey { key })
    }

    /// The suite's canonical name (`bip-cmac128`, ...).
    #[getter]
    fn suite(&self) -> &'static str {
        self.key.suite().name()
    }

    /// Appends the Management MIC element to the management frame `frame`
    /// with IGTK packet number `ipn` and Key ID `key_id` (4 or 5).
    #[pyo3(signature = (frame, ipn, key_id = 4))]
    fn protect<'py>(
        &self,
        py: Python<'py>,
        frame: &Bound<'py, PyAny>,
        ipn: u64,
        key_id: u8,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let f = bytes_of("frame", frame)?;
        if ipn > PN_MAX {
            return Err(PyValueError::new_err(format!(
                "ipn: {ipn} exceeds the 48-bit maximum {PN_MAX}"
            )));
        }
        if !matches!(key_id, 4 | 5) {
            return Err(PyValueError::new_err(format!(
                "key_id: an IGTK's Key ID is 4 or 5, not {key_id}"
            )));
        }
        guard("BipKey.protect", || {
            let mut buf = vec![0u8; f.len() + self.key.overhead().total()];
            buf.get_mut(..f.len())
                .ok_or_else(|| PyValueError::new_err("frame: too long"))?
                .copy_from_slice(&f);
            let n = self
                .key
                .protect_in_place(&mut buf, f.len(), ipn, key_id)
                .map_err(frame_error)?;
            Ok(PyBytes::new(py, buf.get(..n).unwrap_or_default()))
        })
    }

    /// Verifies the Management MIC element that ends `frame`. The result's
    /// `frame` is the frame without its MME, `pn` the IPN.
    fn verify(&self, py: Python<'_>, frame: &Bound<'_, PyAny>) -> PyResult<Unprotected> {
        let f = bytes_of("frame", frame)?;
        guard("BipKey.verify", || {
            let u = self.key.verify(&f).map_err(frame_error)?;
            Ok(Unprotected {
                frame: PyBytes::new(py, f.get(..u.len()).unwrap_or_default()).unbind(),
                proof: u,
            })
        })
    }

    fn __repr__(&self) -> String {
        format!("BipKey('{}', <key>)", self.key.suite().name())
    }
}

/// A frame that verified: its plaintext MPDU, packet number and Key ID.
/// Only `DataKey.unprotect` and `BipKey.verify` make one, and it is the
/// only thing a replay counter accepts.
#[pyclass(frozen, module = "wisec")]
pub struct Unprotected {
    frame: Py<PyBytes>,
    proof: wisec_crypto::Unprotected,
}

#[pymethods]
impl Unprotected {
    /// The plaintext MPDU (for BIP: the frame without its MME).
    #[getter]
    fn frame(&self, py: Python<'_>) -> Py<PyBytes> {
        self.frame.clone_ref(py)
    }

    /// The packet number: PN (CCMP, GCMP), TSC (TKIP), IPN (BIP) or IV (WEP).
    #[getter]
    fn pn(&self) -> u64 {
        self.proof.pn()
    }

    /// The Key ID of the security header or MME.
    #[getter]
    fn key_id(&self) -> u8 {
        self.proof.key_id()
    }

    fn __len__(&self) -> usize {
        self.proof.len()
    }

    fn __bytes__(&self, py: Python<'_>) -> Py<PyBytes> {
        self.frame.clone_ref(py)
    }

    fn __repr__(&self) -> String {
        format!(
            "Unprotected(pn={}, key_id={}, len={})",
            self.proof.pn(),
            self.proof.key_id(),
            self.proof.len()
        )
    }
}

fn replay_error(e: wisec_crypto::replay::Replayed) -> PyErr {
    ReplayError::new_err(e.to_string())
}

/// One receive counter (IEEE Std 802.11-2020, 12.5.3.4.4): accepts only
/// increasing packet numbers, and moves only for a verified frame.
#[pyclass(module = "wisec")]
pub struct ReplayCounter {
    c: Mutex<Counter>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[pymethods]
impl ReplayCounter {
    /// A counter that accepts any first PN, or with `start_after` only PNs
    /// above it (a key installed with its Key RSC).
    #[new]
    #[pyo3(signature = (start_after = None))]
    fn new(start_after: Option<u64>) -> ReplayCounter {
        ReplayCounter {
            c: Mutex::new(start_after.map_or_else(Counter::new, Counter::starting_after)),
        }
    }

    /// The highest PN accepted so far.
    #[getter]
    fn highest(&self) -> Option<u64> {
        lock(&self.c).highest()
    }

    /// True when a frame with this PN would not be a replay (changes nothing).
    fn is_fresh(&self, pn: u64) -> bool {
        lock(&self.c).is_fresh(pn)
    }

    /// Accepts a verified frame, or raises `ReplayError` when its PN is not
    /// above the highest accepted.
    fn accept(&self, verified: &Bound<'_, PyAny>) -> PyResult<()> {
        let u = proof_of(verified)?;
        lock(&self.c).accept(&u).map_err(replay_error)
    }
}

fn proof_of(obj: &Bound<'_, PyAny>) -> PyResult<wisec_crypto::Unprotected> {
    obj.cast::<Unprotected>().map(|u| u.get().proof).map_err(|_| {
        PyTypeError::new_err(format!(
            "verified: expected the Unprotected that DataKey.unprotect or BipKey.verify returned, got {}",
            type_name(obj)
        ))
    })
}

fn slot_of(obj: &Bound<'_, PyAny>) -> PyResult<ReplaySlot> {
    if let Ok(s) = obj.cast::<PyString>() {
        return match s.to_cow()?.as_ref() {
            "mgmt" | "management" => Ok(ReplaySlot::Management),
            other => Err(PyValueError::new_err(format!(
                "slot: '{other}' is not a TID (0..=15) or 'mgmt'"
            ))),
        };
    }
    let tid: u8 = obj.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "slot: expected a TID (int) or 'mgmt', got {}",
            type_name(obj)
        ))
    })?;
    if tid > 15 {
        return Err(PyValueError::new_err(format!(
            "slot: TID {tid} is not in 0..=15"
        )));
    }
    Ok(ReplaySlot::Tid(tid))
}

/// The receive counters of one temporal key: one per TID (0..=15) and one
/// for robust management frames (`'mgmt'`).
#[pyclass(module = "wisec")]
pub struct ReplayCounters {
    c: Mutex<Counters>,
}

#[pymethods]
impl ReplayCounters {
    #[new]
    #[pyo3(signature = (start_after = None))]
    fn new(start_after: Option<u64>) -> ReplayCounters {
        ReplayCounters {
            c: Mutex::new(start_after.map_or_else(Counters::new, Counters::starting_after)),
        }
    }

    /// The highest PN accepted in a slot.
    fn highest(&self, slot: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
        Ok(lock(&self.c).counter(slot_of(slot)?).highest())
    }

    /// True when a frame with this PN in this slot would not be a replay.
    fn is_fresh(&self, slot: &Bound<'_, PyAny>, pn: u64) -> PyResult<bool> {
        Ok(lock(&self.c).is_fresh(slot_of(slot)?, pn))
    }

    /// Accepts a verified frame in a slot, or raises `ReplayError`.
    fn accept(&self, slot: &Bound<'_, PyAny>, verified: &Bound<'_, PyAny>) -> PyResult<()> {
        let s = slot_of(slot)?;
        let u = proof_of(verified)?;
        lock(&self.c).accept(s, &u).map_err(replay_error)
    }
}

/// The canonical names of every suite, data suites first.
#[pyfunction]
fn suites() -> Vec<&'static str> {
    Suite::ALL.iter().map(|s| s.name()).collect()
}

/// What a suite is: name, standard name, selector, key length, overhead.
#[pyfunction]
fn suite_info<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
    let s = suite_of("suite", name)?;
    let d = PyDict::new(py);
    d.set_item("name", s.name())?;
    d.set_item("standard_name", s.standard_name())?;
    d.set_item("selector", s.selector())?;
    d.set_item("key_len", s.key_len())?;
    d.set_item("header", s.overhead().header)?;
    d.set_item("trailer", s.overhead().trailer)?;
    d.set_item("bip", s.is_bip())?;
    d.set_item("legacy", s.is_danger())?;
    Ok(d)
}

fn text_or_bytes(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(s.to_cow()?.as_bytes().to_vec());
    }
    bytes_of(what, obj).map_err(|_| {
        PyTypeError::new_err(format!(
            "{what}: expected str or bytes, got {}",
            type_name(obj)
        ))
    })
}

/// The PSK of a passphrase and SSID: PBKDF2-HMAC-SHA1, 4096 iterations,
/// 256 bits (IEEE Std 802.11-2020, J.4.1).
#[pyfunction]
fn psk<'py>(
    py: Python<'py>,
    passphrase: &Bound<'py, PyAny>,
    ssid: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let p = Zeroizing::new(text_or_bytes("passphrase", passphrase)?);
    let s = text_or_bytes("ssid", ssid)?;
    let pmk = py
        .detach(|| kdf::psk(&p, &s))
        .map_err(|e| PyValueError::new_err(format!("passphrase: {e}")))?;
    Ok(PyBytes::new(py, pmk.as_bytes()))
}

fn nonce_of(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<[u8; 32]> {
    let b = bytes_of(what, obj)?;
    b.as_slice().try_into().map_err(|_| {
        PyValueError::new_err(format!(
            "{what}: a nonce has 32 bytes, this one has {}",
            b.len()
        ))
    })
}

fn pmk_of(obj: &Bound<'_, PyAny>) -> PyResult<Zeroizing<Vec<u8>>> {
    let pmk = Zeroizing::new(bytes_of("pmk", obj)?);
    if !matches!(pmk.len(), 32 | 48 | 64) {
        return Err(PyValueError::new_err(format!(
            "pmk: a PMK has 32, 48 or 64 bytes, this one has {}",
            pmk.len()
        )));
    }
    Ok(pmk)
}

const MIC_NAMES: [(MicAlgorithm, &str); 6] = [
    (MicAlgorithm::HmacMd5, "hmac-md5"),
    (MicAlgorithm::HmacSha1_128, "hmac-sha1-128"),
    (MicAlgorithm::AesCmac128, "aes-128-cmac"),
    (MicAlgorithm::HmacSha256_128, "hmac-sha256-128"),
    (MicAlgorithm::HmacSha384_192, "hmac-sha384-192"),
    (MicAlgorithm::HmacSha512_256, "hmac-sha512-256"),
];

fn mic_name(a: MicAlgorithm) -> &'static str {
    MIC_NAMES
        .iter()
        .find(|(m, _)| *m == a)
        .map_or("?", |(_, n)| n)
}

fn mic_of(name: &str) -> PyResult<MicAlgorithm> {
    MIC_NAMES
        .iter()
        .find(|(_, n)| *n == name.to_ascii_lowercase())
        .map(|(m, _)| *m)
        .ok_or_else(|| {
            let names: Vec<&str> = MIC_NAMES.iter().map(|m| m.1).collect();
            PyValueError::new_err(format!(
                "algorithm: unknown EAPOL-Key MIC '{name}' (expected {})",
                names.join(", ")
            ))
        })
}

fn hierarchy(
    akm: &Bound<'_, PyAny>,
    cipher: &str,
    pmk_len: usize,
) -> PyResult<(
    KeyHierarchy,
    wisec_wire::element::Akm,
    wisec_wire::element::CipherSuite,
)> {
    let a = akm_of(akm)?;
    let c = cipher_of("cipher", cipher, a.oui == OUI_MICROSOFT)?;
    let h = KeyHierarchy::for_akm(a, c, pmk_len).map_err(|e| match e {
        Error::InvalidParameter => PyValueError::new_err(format!(
            "pmk: OWE takes a PMK of 32, 48 or 64 bytes, not {pmk_len}"
        )),
        _ => PyValueError::new_err(format!(
            "akm: no key hierarchy for AKM {}",
            crate::args::akm_name(a)
        )),
    })?;
    Ok((h, a, c))
}

/// The EAPOL-Key MIC algorithm of an AKM with a pairwise cipher (and, for
/// OWE, the PMK length): IEEE Std 802.11-2020, Table 12-11.
#[pyfunction]
#[pyo3(signature = (akm, cipher = "ccmp128", pmk_len = 32))]
fn mic_algorithm(akm: &Bound<'_, PyAny>, cipher: &str, pmk_len: usize) -> PyResult<&'static str> {
    Ok(mic_name(hierarchy(akm, cipher, pmk_len)?.0.mic))
}

/// A pairwise transient key: KCK, KEK and TK.
#[pyclass(frozen, module = "wisec")]
pub struct Ptk {
    ptk: RsnPtk,
    mic: MicAlgorithm,
    suite: Suite,
}

#[pymethods]
impl Ptk {
    /// The key confirmation key (EAPOL-Key MIC).
    #[getter]
    fn kck<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.ptk.kck())
    }
    /// The key encryption key (EAPOL-Key Key Data).
    #[getter]
    fn kek<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.ptk.kek())
    }
    /// The temporal key of the pairwise cipher (TKIP: with its Michael keys).
    #[getter]
    fn tk<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.ptk.tk())
    }
    /// The whole PTK, KCK || KEK || TK.
    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.ptk.as_bytes())
    }
    fn __len__(&self) -> usize {
        self.ptk.len()
    }
    /// The EAPOL-Key MIC algorithm of its AKM.
    #[getter]
    fn mic_algorithm(&self) -> &'static str {
        mic_name(self.mic)
    }
    /// The pairwise suite the TK is for.
    #[getter]
    fn suite(&self) -> &'static str {
        self.suite.name()
    }
    /// A `DataKey` of the TK.
    fn data_key(&self) -> PyResult<DataKey> {
        let key = RsnDataKey::new(self.suite, self.ptk.tk())
            .map_err(|e| PyValueError::new_err(format!("tk: {e}")))?;
        Ok(DataKey { key })
    }
    fn __repr__(&self) -> String {
        format!(
            "Ptk(suite='{}', kck={}, kek={}, tk={} bytes)",
            self.suite.name(),
            self.ptk.kck().len(),
            self.ptk.kek().len(),
            self.ptk.tk().len()
        )
    }
}

/// Derives the PTK of a 4-way handshake (IEEE Std 802.11-2020, 12.7.1.3)
/// for an AKM and pairwise cipher from the PMK, the authenticator address
/// `aa`, the supplicant address `spa` and both nonces.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn derive_ptk(
    py: Python<'_>,
    akm: &Bound<'_, PyAny>,
    cipher: &str,
    pmk: &Bound<'_, PyAny>,
    aa: &Bound<'_, PyAny>,
    spa: &Bound<'_, PyAny>,
    anonce: &Bound<'_, PyAny>,
    snonce: &Bound<'_, PyAny>,
) -> PyResult<Ptk> {
    let pmk = pmk_of(pmk)?;
    let (h, a, c) = hierarchy(akm, cipher, pmk.len())?;
    if h.ft {
        return Err(PyValueError::new_err(format!(
            "akm: {} is an FT AKM, whose PTK comes from PMK-R1 (not derived here)",
            crate::args::akm_name(a)
        )));
    }
    let aa = mac_of("aa", aa)?;
    let spa = mac_of("spa", spa)?;
    let an = nonce_of("anonce", anonce)?;
    let sn = nonce_of("snonce", snonce)?;
    let suite = suite_of("cipher", cipher)?;
    let ptk = py
        .detach(|| RsnPtk::derive_with(h, c, &pmk, aa, spa, &an, &sn))
        .map_err(|e| PyValueError::new_err(format!("cannot derive the PTK: {e}")))?;
    Ok(Ptk {
        ptk,
        mic: h.mic,
        suite,
    })
}

/// The PMKID of a PMKSA (12.7.1.3) for the AKMs that name it from the PMK
/// (802.1X and PSK, SHA-1 and SHA-2).
#[pyfunction]
fn pmkid<'py>(
    py: Python<'py>,
    akm: &Bound<'py, PyAny>,
    pmk: &Bound<'py, PyAny>,
    aa: &Bound<'py, PyAny>,
    spa: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let a = akm_of(akm)?;
    let pmk = pmk_of(pmk)?;
    let id = wisec_crypto::ptk::pmkid(a, &pmk, mac_of("aa", aa)?, mac_of("spa", spa)?).map_err(
        |_| {
            PyValueError::new_err(format!(
                "akm: {} names its PMK otherwise (SAE, OWE, FT)",
                crate::args::akm_name(a)
            ))
        },
    )?;
    Ok(PyBytes::new(py, &id))
}

fn mic_inputs(
    algorithm: &str,
    kck: &Bound<'_, PyAny>,
    pdu: &Bound<'_, PyAny>,
) -> PyResult<(MicAlgorithm, Zeroizing<Vec<u8>>, Vec<u8>)> {
    let alg = mic_of(algorithm)?;
    let kck = Zeroizing::new(bytes_of("kck", kck)?);
    if kck.len() != alg.kck_len() {
        return Err(PyValueError::new_err(format!(
            "kck: a {} KCK has {} bytes, this one has {}",
            mic_name(alg),
            alg.kck_len(),
            kck.len()
        )));
    }
    let pdu = bytes_of("pdu", pdu)?;
    let need = MIC_OFFSET + alg.mic_len() + 2;
    if pdu.len() < need {
        return Err(PyValueError::new_err(format!(
            "pdu: an EAPOL-Key PDU with a {}-byte MIC has at least {need} bytes, this one has {}",
            alg.mic_len(),
            pdu.len()
        )));
    }
    Ok((alg, kck, pdu))
}

/// The EAPOL-Key PDU `pdu` (EAPOL header first) with its Key MIC field
/// computed under `kck` (12.7.2).
#[pyfunction]
fn eapol_sign<'py>(
    py: Python<'py>,
    algorithm: &str,
    kck: &Bound<'py, PyAny>,
    pdu: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (alg, kck, mut pdu) = mic_inputs(algorithm, kck, pdu)?;
    mic::sign_pdu(alg, &kck, &mut pdu).map_err(|e| PyValueError::new_err(format!("pdu: {e}")))?;
    Ok(PyBytes::new(py, &pdu))
}

/// The Key MIC of the EAPOL-Key PDU `pdu`, computed as if its MIC field
/// were zero.
#[pyfunction]
fn eapol_mic<'py>(
    py: Python<'py>,
    algorithm: &str,
    kck: &Bound<'py, PyAny>,
    pdu: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (alg, kck, mut pdu) = mic_inputs(algorithm, kck, pdu)?;
    mic::sign_pdu(alg, &kck, &mut pdu).map_err(|e| PyValueError::new_err(format!("pdu: {e}")))?;
    Ok(PyBytes::new(
        py,
        pdu.get(MIC_OFFSET..MIC_OFFSET + alg.mic_len())
            .unwrap_or_default(),
    ))
}

/// True when the Key MIC carried in `pdu` verifies under `kck` (compared
/// in constant time).
#[pyfunction]
fn eapol_verify(algorithm: &str, kck: &Bound<'_, PyAny>, pdu: &Bound<'_, PyAny>) -> PyResult<bool> {
    let (alg, kck, pdu) = mic_inputs(algorithm, kck, pdu)?;
    match mic::verify_pdu(alg, &kck, &pdu) {
        Ok(()) => Ok(true),
        Err(Error::Integrity) => Ok(false),
        Err(e) => Err(PyValueError::new_err(format!("pdu: {e}"))),
    }
}
