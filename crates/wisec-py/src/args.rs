//! Arguments from Python, checked: bytes-like values, MAC addresses,
//! suite and AKM names. Each error names the argument.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView, PyString};
use wisec_crypto::suite::Suite;
use wisec_wire::element::{Akm, CipherSuite, OUI_IEEE80211, OUI_MICROSOFT};
use wisec_wire::MacAddr;

/// The Python type name of `obj`, for messages.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string())
}

/// `obj` as bytes: `bytes`, `bytearray`, `memoryview`, or any object with
/// `__bytes__` (a scapy packet).
pub fn bytes_of(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(b.to_vec());
    }
    if obj.is_instance_of::<PyMemoryView>() || obj.hasattr("__bytes__").unwrap_or(false) {
        let b =
            obj.py().get_type::<PyBytes>().call1((obj,)).map_err(|e| {
                PyTypeError::new_err(format!("{what}: cannot be read as bytes: {e}"))
            })?;
        if let Ok(b) = b.cast::<PyBytes>() {
            return Ok(b.as_bytes().to_vec());
        }
    }
    Err(PyTypeError::new_err(format!(
        "{what}: expected bytes, bytearray or memoryview, got {}",
        type_name(obj)
    )))
}

/// A MAC address given as `"aa:bb:cc:dd:ee:ff"` (or with dashes) or as 6
/// bytes.
pub fn mac_of(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<MacAddr> {
    if let Ok(s) = obj.cast::<PyString>() {
        let s = s.to_cow()?;
        return wisec::decrypt::cli::parse_mac(&s)
            .ok_or_else(|| PyValueError::new_err(format!("{what}: '{s}' is not a MAC address")));
    }
    let b = bytes_of(what, obj).map_err(|_| {
        PyTypeError::new_err(format!(
            "{what}: expected a MAC address as str or 6 bytes, got {}",
            type_name(obj)
        ))
    })?;
    let a: [u8; 6] = b.as_slice().try_into().map_err(|_| {
        PyValueError::new_err(format!(
            "{what}: a MAC address has 6 bytes, this one has {}",
            b.len()
        ))
    })?;
    Ok(MacAddr(a))
}

/// A suite name as the command line takes it (`ccmp`, `GCMP-256`, ...).
pub fn suite_of(what: &str, name: &str) -> PyResult<Suite> {
    name.parse::<Suite>()
        .map_err(|e| PyValueError::new_err(format!("{what}: '{name}': {e}")))
}

/// The AKM names this package takes, with their suite selectors.
pub const AKMS: &[(&str, [u8; 3], u8)] = &[
    ("8021x", OUI_IEEE80211, 1),
    ("psk", OUI_IEEE80211, 2),
    ("ft-8021x", OUI_IEEE80211, 3),
    ("ft-psk", OUI_IEEE80211, 4),
    ("8021x-sha256", OUI_IEEE80211, 5),
    ("psk-sha256", OUI_IEEE80211, 6),
    ("sae", OUI_IEEE80211, 8),
    ("ft-sae", OUI_IEEE80211, 9),
    ("8021x-suite-b", OUI_IEEE80211, 11),
    ("8021x-suite-b-192", OUI_IEEE80211, 12),
    ("ft-8021x-sha384", OUI_IEEE80211, 13),
    ("owe", OUI_IEEE80211, 18),
    ("ft-psk-sha384", OUI_IEEE80211, 19),
    ("psk-sha384", OUI_IEEE80211, 20),
    ("wpa-8021x", OUI_MICROSOFT, 1),
    ("wpa-psk", OUI_MICROSOFT, 2),
];

/// An AKM: a name of [`AKMS`], or the suite type under 00-0F-AC as an int.
pub fn akm_of(obj: &Bound<'_, PyAny>) -> PyResult<Akm> {
    if let Ok(n) = obj.extract::<u8>() {
        return Ok(Akm::from((OUI_IEEE80211, n)));
    }
    let name: String = obj.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "akm: expected a name or a suite type (int), got {}",
            type_name(obj)
        ))
    })?;
    let key = name.to_ascii_lowercase().replace('_', "-");
    AKMS.iter()
        .find(|(n, _, _)| *n == key)
        .map(|&(_, oui, t)| Akm::from((oui, t)))
        .ok_or_else(|| {
            let names: Vec<&str> = AKMS.iter().map(|a| a.0).collect();
            PyValueError::new_err(format!(
                "akm: unknown AKM '{name}' (expected {}, or a suite type under 00-0F-AC)",
                names.join(", ")
            ))
        })
}

/// The name of an AKM in [`AKMS`], else its selector in hex.
pub fn akm_name(akm: Akm) -> String {
    AKMS.iter()
        .find(|&&(_, oui, t)| oui == akm.oui && t == akm.suite_type)
        .map_or_else(
            || {
                let b = akm.to_bytes();
                format!("{:02x}-{:02x}-{:02x}:{}", b[0], b[1], b[2], b[3])
            },
            |a| a.0.to_string(),
        )
}

/// The pairwise cipher selector of a data suite, as the RSNE names it
/// (`wpa_tkip` for TKIP under the WPA element's OUI).
pub fn cipher_of(what: &str, name: &str, wpa: bool) -> PyResult<CipherSuite> {
    let s = suite_of(what, name)?;
    if s.is_bip() || matches!(s, Suite::Wep40 | Suite::Wep104) {
        return Err(PyValueError::new_err(format!(
            "{what}: {} is not a pairwise cipher",
            s.standard_name()
        )));
    }
    if wpa {
        return match s {
            Suite::Tkip => Ok(CipherSuite::WPA_TKIP),
            Suite::Ccmp128 => Ok(CipherSuite::WPA_CCMP),
            _ => Err(PyValueError::new_err(format!(
                "{what}: WPA (the WPA element) has no {}",
                s.standard_name()
            ))),
        };
    }
    Ok(CipherSuite::from_bytes(s.selector_bytes()))
}
