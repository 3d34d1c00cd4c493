//! Keys given on the command line, and the lookup interface pipelines use.
//!
//! The decrypt pipeline asks a [`KeyStore`] which keys may protect a frame.
//! [`StaticKeys`] answers from keys the user typed; a 4-way handshake
//! tracker can implement the same trait and answer with keys it derives
//! while the capture streams past ([`KeyStore::observe`] shows it every
//! frame in plaintext).

use std::fmt;
use wisec_crypto::batch::FrameBuf;
use wisec_crypto::ccmp::{Ccmp128, Ccmp256};
use wisec_crypto::suite::{BipKey, DataKey, Suite};
use wisec_crypto::tkip::DangerTkipTkOnly;
use wisec_wire::MacAddr;
use zeroize::Zeroizing;

/// Identifies one key (of one suite) of a store; replay counters are kept
/// per key and transmitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyId(pub u32);

/// What the pipeline knows about a protected frame when it looks up keys.
#[derive(Debug, Clone, Copy)]
pub struct KeyQuery<'a> {
    /// Receiver address (Address 1).
    pub ra: MacAddr,
    /// Transmitter address (Address 2).
    pub ta: MacAddr,
    /// True when the receiver address is a group address.
    pub group: bool,
    /// True when the security header is WEP's (ExtIV clear).
    pub wep: bool,
    /// The Key ID of the security header or of the MME.
    pub key_id: u16,
    /// The whole protected MPDU.
    pub frame: &'a [u8],
}

/// A source of keys for the decrypt pipeline.
pub trait KeyStore {
    /// Data-suite keys that may protect the frame, in the order to try
    /// them.
    fn data_keys(&self, q: &KeyQuery<'_>) -> Vec<(KeyId, &DataKey)>;

    /// Integrity group keys that may have produced the frame's MME.
    fn bip_keys(&self, q: &KeyQuery<'_>) -> Vec<(KeyId, &BipKey)>;

    /// TKIP temporal keys given without their Michael MIC keys (16
    /// octets): what they unprotect is verified by its ICV only.
    fn tkip_tk_only_keys(&self, _q: &KeyQuery<'_>) -> Vec<(KeyId, &DangerTkipTkOnly)> {
        Vec::new()
    }

    /// Sees every MPDU after the pipeline is done with it, in plaintext
    /// when it could be unprotected. A handshake tracker derives keys here.
    fn observe(&mut self, _mpdu: &[u8]) {}

    /// Why no key is known for a frame, for the summary.
    fn no_key_reason(&self, _q: &KeyQuery<'_>) -> &'static str {
        "no key given for this frame"
    }

    /// A name for a key in the summary (`None`: the suite's name).
    fn key_name(&self, _id: KeyId) -> Option<String> {
        None
    }

    /// A number that changes whenever the answers of
    /// [`KeyStore::data_keys`] may change (a key installed or dropped).
    /// `Some` promises that `data_keys` depends only on the generation and
    /// the query's `ra`, `ta`, `group`, `wep` and `key_id` (not on the
    /// frame), so a pipeline may remember its answers and look ahead of
    /// [`KeyStore::observe`]. `None` (the default): ask for every frame.
    fn key_generation(&self) -> Option<u64> {
        None
    }

    /// The multi-frame engine for a key [`KeyStore::data_keys`] returned,
    /// when its suite has one (CCMP); it must hold the same key. `None`
    /// (the default): the pipeline unprotects frame by frame.
    fn batch_key(&self, _id: KeyId) -> Option<&BatchKey> {
        None
    }
}

/// A temporal key for the decrypt pipeline's engine threads, beside the
/// [`DataKey`] of the same key: CCMP keys for the multi-frame engine of
/// [`wisec_crypto::batch`], the other suites' keys to unprotect frame by
/// frame on those threads.
#[derive(Clone)]
pub enum BatchKey {
    /// CCMP-128.
    Ccmp128(Ccmp128),
    /// CCMP-256.
    Ccmp256(Ccmp256),
    /// Another suite (WEP, TKIP, GCMP): one frame at a time.
    Frames(std::sync::Arc<DataKey>),
}

impl BatchKey {
    /// The engine for `key` of `suite`, when the suite has one.
    pub fn new(suite: Suite, key: &[u8]) -> Option<BatchKey> {
        match suite {
            Suite::Ccmp128 => Ccmp128::new(key).ok().map(BatchKey::Ccmp128),
            Suite::Ccmp256 => Ccmp256::new(key).ok().map(BatchKey::Ccmp256),
            s if s.is_bip() => None,
            s => DataKey::new(s, key)
                .ok()
                .map(|k| BatchKey::Frames(std::sync::Arc::new(k))),
        }
    }

    /// The suite.
    pub fn suite(&self) -> Suite {
        match self {
            BatchKey::Ccmp128(_) => Suite::Ccmp128,
            BatchKey::Ccmp256(_) => Suite::Ccmp256,
            BatchKey::Frames(k) => k.suite(),
        }
    }

    /// Verifies and decrypts every frame in place, exactly as
    /// [`wisec_crypto::FrameProtector::unprotect_in_place`] one by one
    /// (a frame that fails is left as it was given).
    /// A key of [`BatchKey::Frames`] unprotects nothing here: see
    /// [`BatchKey::per_frame`].
    pub fn unprotect_batch(&self, frames: &mut [FrameBuf<'_>]) -> usize {
        match self {
            BatchKey::Ccmp128(k) => k.unprotect_batch(frames),
            BatchKey::Ccmp256(k) => k.unprotect_batch(frames),
            BatchKey::Frames(_) => 0,
        }
    }

    /// The key of a suite without a multi-frame engine.
    pub fn per_frame(&self) -> Option<&DataKey> {
        match self {
            BatchKey::Frames(k) => Some(k),
            _ => None,
        }
    }
}

impl fmt::Debug for BatchKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print key material.
        f.debug_struct("BatchKey")
            .field("suite", &self.suite())
            .finish_non_exhaustive()
    }
}

/// Keys typed by the user: pairwise (TK), group (GTK), WEP and IGTK.
#[derive(Default)]
pub struct StaticKeys {
    batch: Vec<(KeyId, BatchKey)>,
    pairwise: Vec<(KeyId, DataKey)>,
    group: Vec<(KeyId, DataKey)>,
    wep: Vec<(KeyId, DataKey)>,
    igtk: Vec<(KeyId, BipKey)>,
    /// 16-octet TKIP keys (no Michael keys), pairwise and group.
    tk_only: Vec<(KeyId, KeyRole, DangerTkipTkOnly)>,
    next: u32,
}

/// A key that cannot be used as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError(pub String);

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for KeyError {}

/// Which list of [`StaticKeys`] a key goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRole {
    /// A pairwise temporal key, for individually addressed frames.
    Pairwise,
    /// A group temporal key, for group-addressed frames.
    Group,
}

impl StaticKeys {
    /// An empty store.
    pub fn new() -> StaticKeys {
        StaticKeys::default()
    }

    fn id(&mut self) -> KeyId {
        self.next += 1;
        KeyId(self.next)
    }

    /// Adds a temporal key. With `suite` `None` the key is tried as every
    /// suite its length fits ([`Suite::data_suites_for_key_len`]).
    ///
    /// A 16-byte key is also tried as a TKIP temporal key without its
    /// Michael keys (with `suite` TKIP, only so): frames it decrypts have
    /// their ICV verified but not their Michael MIC.
    pub fn add_temporal(
        &mut self,
        role: KeyRole,
        suite: Option<Suite>,
        key: &[u8],
    ) -> Result<(), KeyError> {
        if key.len() == 16 && matches!(suite, None | Some(Suite::Tkip)) {
            let k = DangerTkipTkOnly::new(key).map_err(|e| KeyError(e.to_string()))?;
            let id = self.id();
            self.tk_only.push((id, role, k));
            if suite.is_some() {
                return Ok(());
            }
        }
        let suites: Vec<Suite> = match suite {
            Some(s) if s.is_bip() => {
                return Err(KeyError(format!(
                    "{s} is an integrity suite; give its key with --igtk"
                )))
            }
            Some(s) if s.is_danger() && s != Suite::Tkip => {
                return Err(KeyError(format!(
                    "give WEP keys with --wep, not as {s} keys"
                )))
            }
            Some(s) => {
                if key.len() != s.key_len() {
                    return Err(KeyError(format!(
                        "a {} key has {} bytes, this one has {}",
                        s.standard_name(),
                        s.key_len(),
                        key.len()
                    )));
                }
                vec![s]
            }
            None => {
                let s = Suite::data_suites_for_key_len(key.len());
                if s.is_empty() {
                    return Err(KeyError(format!(
                        "a key of {} bytes fits no suite (16 bytes: CCMP-128, GCMP-128; 32 bytes: TKIP, CCMP-256, GCMP-256)",
                        key.len()
                    )));
                }
                s.to_vec()
            }
        };
        for s in suites {
            let k = DataKey::new(s, key).map_err(|e| KeyError(e.to_string()))?;
            let id = self.id();
            if let Some(b) = BatchKey::new(s, key) {
                self.batch.push((id, b));
            }
            match role {
                KeyRole::Pairwise => self.pairwise.push((id, k)),
                KeyRole::Group => self.group.push((id, k)),
            }
        }
        Ok(())
    }

    /// Adds a WEP key of 5 or 13 bytes.
    pub fn add_wep(&mut self, key: &[u8]) -> Result<(), KeyError> {
        let suite = match key.len() {
            5 => Suite::Wep40,
            13 => Suite::Wep104,
            n => {
                return Err(KeyError(format!(
                    "a WEP key has 5 or 13 bytes, this one has {n}"
                )))
            }
        };
        let k = DataKey::new(suite, key).map_err(|e| KeyError(e.to_string()))?;
        let id = self.id();
        if let Some(b) = BatchKey::new(suite, key) {
            self.batch.push((id, b));
        }
        self.wep.push((id, k));
        Ok(())
    }

    /// Adds an IGTK, tried as every BIP suite its length fits unless
    /// `suite` names one.
    pub fn add_igtk(&mut self, suite: Option<Suite>, key: &[u8]) -> Result<(), KeyError> {
        let suites: Vec<Suite> = match suite {
            Some(s) if s.is_bip() => vec![s],
            _ => Suite::bip_suites_for_key_len(key.len()).to_vec(),
        };
        if suites.is_empty() || suites.iter().any(|s| s.key_len() != key.len()) {
            return Err(KeyError(format!(
                "an IGTK has 16 or 32 bytes (matching its suite), this one has {}",
                key.len()
            )));
        }
        for s in suites {
            let k = BipKey::new(s, key).map_err(|e| KeyError(e.to_string()))?;
            let id = self.id();
            self.igtk.push((id, k));
        }
        Ok(())
    }

    /// True when the store holds no key at all.
    pub fn is_empty(&self) -> bool {
        self.pairwise.is_empty()
            && self.tk_only.is_empty()
            && self.group.is_empty()
            && self.wep.is_empty()
            && self.igtk.is_empty()
    }
}

impl KeyStore for StaticKeys {
    fn data_keys(&self, q: &KeyQuery<'_>) -> Vec<(KeyId, &DataKey)> {
        let list = if q.wep {
            &self.wep
        } else if q.group {
            &self.group
        } else {
            &self.pairwise
        };
        list.iter().map(|(id, k)| (*id, k)).collect()
    }

    fn bip_keys(&self, _q: &KeyQuery<'_>) -> Vec<(KeyId, &BipKey)> {
        self.igtk.iter().map(|(id, k)| (*id, k)).collect()
    }

    fn tkip_tk_only_keys(&self, q: &KeyQuery<'_>) -> Vec<(KeyId, &DangerTkipTkOnly)> {
        if q.wep {
            return Vec::new();
        }
        let role = if q.group {
            KeyRole::Group
        } else {
            KeyRole::Pairwise
        };
        self.tk_only
            .iter()
            .filter(|(_, r, _)| *r == role)
            .map(|(id, _, k)| (*id, k))
            .collect()
    }

    fn key_name(&self, id: KeyId) -> Option<String> {
        self.tk_only
            .iter()
            .any(|(i, _, _)| *i == id)
            .then(|| format!("tkip key #{} (TK only: Michael MIC unverified)", id.0))
    }

    fn key_generation(&self) -> Option<u64> {
        // Keys are only added before a pipeline runs.
        Some(0)
    }

    fn batch_key(&self, id: KeyId) -> Option<&BatchKey> {
        self.batch.iter().find(|(i, _)| *i == id).map(|(_, k)| k)
    }
}

/// Parses hex key material. Colons, dashes and spaces between digit pairs
/// are allowed. Errors give the 1-based character position.
pub fn parse_hex(s: &str) -> Result<Zeroizing<Vec<u8>>, String> {
    let mut out = Zeroizing::new(Vec::with_capacity(s.len() / 2));
    let mut high: Option<u8> = None;
    let mut digits = 0usize;
    for (i, c) in s.chars().enumerate() {
        if matches!(c, ':' | '-' | ' ') && high.is_none() && i > 0 {
            continue;
        }
        let Some(v) = c.to_digit(16) else {
            return Err(format!("invalid hex at character {}", i + 1));
        };
        digits += 1;
        match high.take() {
            None => high = Some(v as u8),
            Some(h) => out.push((h << 4) | v as u8),
        }
    }
    if digits == 0 {
        return Err("empty key".to_string());
    }
    if high.is_some() {
        return Err(format!("odd number of hex digits ({digits})"));
    }
    Ok(out)
}

/// Parses a WEP key: 10 or 26 hex digits, or `s:` followed by 5 or 13
/// ASCII characters.
pub fn parse_wep(s: &str) -> Result<Zeroizing<Vec<u8>>, String> {
    if let Some(text) = s.strip_prefix("s:") {
        if !text.is_ascii() {
            return Err("an s: WEP key must be ASCII".to_string());
        }
        return match text.len() {
            5 | 13 => Ok(Zeroizing::new(text.as_bytes().to_vec())),
            n => Err(format!(
                "an s: WEP key has 5 or 13 characters, this one has {n}"
            )),
        };
    }
    let k = parse_hex(s)?;
    match k.len() {
        5 | 13 => Ok(k),
        n => Err(format!(
            "a WEP key has 10 or 26 hex digits (or s: and 5 or 13 characters), this one has {}",
            2 * n
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_keys() {
        assert_eq!(parse_hex("00ff10").unwrap().as_slice(), &[0, 0xff, 0x10]);
        assert_eq!(parse_hex("00:FF:10").unwrap().as_slice(), &[0, 0xff, 0x10]);
        assert_eq!(
            parse_hex("00ff1g00").unwrap_err(),
            "invalid hex at character 6"
        );
        assert_eq!(parse_hex("0").unwrap_err(), "odd number of hex digits (1)");
        assert_eq!(parse_hex(":00").unwrap_err(), "invalid hex at character 1");
        assert_eq!(parse_hex("").unwrap_err(), "empty key");
    }

    #[test]
    fn wep_keys() {
        assert_eq!(parse_wep("s:abcde").unwrap().as_slice(), b"abcde");
        assert_eq!(parse_wep("0102030405").unwrap().len(), 5);
        assert_eq!(parse_wep("0102030405060708090a0b0c0d").unwrap().len(), 13);
        assert!(parse_wep("s:abcd").is_err());
        assert!(parse_wep("01020304").is_err());
    }
}
