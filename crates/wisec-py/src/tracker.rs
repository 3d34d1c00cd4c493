//! The passive handshake tracker of `wisec-proto`, fed frame by frame.

use crate::args::{akm_name, bytes_of, mac_of};
use crate::guard;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::sync::Mutex;
use wisec_proto::tracker::{Event, Tracker as RsnTracker};
use zeroize::Zeroizing;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Tracker>()
}

/// Follows the RSN 4-way and group key handshakes of a capture, shown
/// every frame in plaintext, and derives each link's PTK, GTK and IGTK
/// from the credentials it was given. A key is installed only after a MIC
/// verified under it, and never twice.
#[pyclass(module = "wisec")]
pub struct Tracker {
    t: Mutex<RsnTracker>,
}

/// A GTK or IGTK event as a dict.
fn group_key(
    d: &Bound<'_, PyDict>,
    kind: &str,
    bssid: wisec_wire::MacAddr,
    handle: wisec_proto::tracker::KeyHandle,
    key_id: u16,
    suite: wisec_crypto::suite::Suite,
    key: &[u8],
) -> PyResult<()> {
    d.set_item("type", kind)?;
    d.set_item("bssid", bssid.to_string())?;
    d.set_item("handle", handle.0)?;
    d.set_item("key_id", key_id)?;
    d.set_item("suite", suite.name())?;
    d.set_item("key", PyBytes::new(d.py(), key))?;
    Ok(())
}

fn lock(m: &Mutex<RsnTracker>) -> std::sync::MutexGuard<'_, RsnTracker> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[pymethods]
impl Tracker {
    #[new]
    fn new() -> Tracker {
        Tracker {
            t: Mutex::new(RsnTracker::new()),
        }
    }

    /// Adds a passphrase (8 to 63 printable ASCII characters); without
    /// `ssid` the SSID comes from beacons, probe responses and association
    /// requests.
    #[pyo3(signature = (passphrase, ssid = None))]
    fn add_passphrase(&self, passphrase: &str, ssid: Option<&str>) -> PyResult<()> {
        lock(&self.t)
            .add_passphrase(passphrase.as_bytes(), ssid.map(str::as_bytes))
            .map_err(|e| PyValueError::new_err(format!("passphrase: {e}")))
    }

    /// Adds a PMK (or PSK) of 32, 48 or 64 bytes, tried with every AKM.
    fn add_pmk(&self, pmk: &Bound<'_, PyAny>) -> PyResult<()> {
        let k = Zeroizing::new(bytes_of("pmk", pmk)?);
        lock(&self.t).add_pmk(&k).map_err(|_| {
            PyValueError::new_err(format!(
                "pmk: a PMK has 32, 48 or 64 bytes, this one has {}",
                k.len()
            ))
        })
    }

    /// Adds the MSK of an 802.1X authentication (at least 64 bytes).
    fn add_msk(&self, msk: &Bound<'_, PyAny>) -> PyResult<()> {
        let k = Zeroizing::new(bytes_of("msk", msk)?);
        lock(&self.t).add_msk(&k).map_err(|_| {
            PyValueError::new_err(format!(
                "msk: an MSK has at least 64 bytes, this one has {}",
                k.len()
            ))
        })
    }

    /// Shows the tracker one MPDU (MAC header and body, no FCS) in
    /// plaintext. Frames it has no use for are ignored.
    fn observe(&self, py: Python<'_>, mpdu: &Bound<'_, PyAny>) -> PyResult<()> {
        let f = bytes_of("mpdu", mpdu)?;
        py.detach(|| {
            guard("Tracker.observe", || {
                lock(&self.t).observe(&f);
                Ok(())
            })
        })
    }

    /// The events since the last call, oldest first, as dicts: `type` is
    /// `pairwise_key`, `pairwise_key_id`, `group_key`, `integrity_key` or
    /// `rejected`; keys come with their bytes.
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        let mut t = lock(&self.t);
        while let Some(e) = t.poll_event() {
            let d = PyDict::new(py);
            match e {
                Event::PairwiseKey {
                    aa,
                    spa,
                    handle,
                    key_id,
                    suite,
                    akm,
                    ptk,
                    credential,
                    ..
                } => {
                    d.set_item("type", "pairwise_key")?;
                    d.set_item("aa", aa.to_string())?;
                    d.set_item("spa", spa.to_string())?;
                    d.set_item("handle", handle.0)?;
                    d.set_item("key_id", key_id)?;
                    d.set_item("suite", suite.name())?;
                    d.set_item("akm", akm_name(akm))?;
                    d.set_item("kck", PyBytes::new(py, ptk.kck()))?;
                    d.set_item("kek", PyBytes::new(py, ptk.kek()))?;
                    d.set_item("tk", PyBytes::new(py, ptk.tk()))?;
                    d.set_item("credential", credential)?;
                }
                Event::PairwiseKeyId { handle, key_id } => {
                    d.set_item("type", "pairwise_key_id")?;
                    d.set_item("handle", handle.0)?;
                    d.set_item("key_id", key_id)?;
                }
                Event::GroupKey {
                    bssid,
                    handle,
                    key_id,
                    suite,
                    key,
                } => group_key(&d, "group_key", bssid, handle, key_id.into(), suite, &key)?,
                Event::IntegrityGroupKey {
                    bssid,
                    handle,
                    key_id,
                    suite,
                    key,
                } => group_key(&d, "integrity_key", bssid, handle, key_id, suite, &key)?,
                Event::Rejected {
                    aa,
                    spa,
                    message,
                    reason,
                } => {
                    d.set_item("type", "rejected")?;
                    d.set_item("aa", aa.to_string())?;
                    d.set_item("spa", spa.to_string())?;
                    d.set_item("message", message.name())?;
                    d.set_item("reason", reason.reason())?;
                }
            }
            out.append(d)?;
        }
        Ok(out)
    }

    /// Every link seen, with its handshake counters.
    fn links<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for (aa, spa, st) in lock(&self.t).links() {
            let d = PyDict::new(py);
            d.set_item("aa", aa.to_string())?;
            d.set_item("spa", spa.to_string())?;
            d.set_item("eapol_frames", st.eapol_frames)?;
            d.set_item("handshakes_seen", st.handshakes_seen)?;
            d.set_item("handshakes_complete", st.handshakes_complete)?;
            d.set_item("ptks", st.ptks)?;
            d.set_item("msg4", st.msg4)?;
            d.set_item("group_rekeys", st.group_rekeys)?;
            d.set_item("ft_roams", st.ft_roams)?;
            d.set_item("retransmissions", st.retransmissions)?;
            let r = PyDict::new(py);
            for (k, n) in &st.rejected {
                r.set_item(k.reason(), n)?;
            }
            d.set_item("rejected", r)?;
            out.append(d)?;
        }
        Ok(out)
    }

    /// The SSID learnt for a BSS.
    fn ssid<'py>(
        &self,
        py: Python<'py>,
        bssid: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let b = mac_of("bssid", bssid)?;
        Ok(lock(&self.t).ssid(b).map(|s| PyBytes::new(py, s)))
    }

    /// True when the link between `a` and `b` (either order) has a PTK.
    fn has_ptk(&self, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(lock(&self.t).has_ptk(mac_of("a", a)?, mac_of("b", b)?))
    }
}
