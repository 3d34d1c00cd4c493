//! Keys derived while the capture streams past: a [`KeyStore`] over the
//! passive handshake tracker of `wisec-proto`, beside the keys typed on
//! the command line.

use super::keys::{BatchKey, KeyId, KeyQuery, KeyStore, StaticKeys};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use wisec_crypto::suite::{BipKey, DataKey};
use wisec_crypto::tkip::DangerTkipTkOnly;
use wisec_proto::tracker::{Event, KeyHandle, LinkStats, Tracker};
use wisec_wire::MacAddr;

/// Links whose rejections are kept before those of links the tracker
/// forgot are dropped: twice the tracker's default link limit, so that
/// dropping is rare and memory stays bounded.
const MAX_REJECTED_LINKS: usize = 2 * 16_384;

/// Tracker keys live above this bit so they never meet typed keys' IDs.
const TRACKED: u32 = 1 << 31;

fn id_of(h: KeyHandle) -> KeyId {
    KeyId(TRACKED | h.0)
}

/// Typed keys and the keys a handshake tracker derives.
pub struct TrackedKeys {
    /// Keys given as TK/GTK/WEP/IGTK.
    pub given: StaticKeys,
    tracker: Tracker,
    names: HashMap<KeyId, String>,
    /// The multi-frame engines of the derived CCMP keys.
    batch: HashMap<KeyId, BatchKey>,
    keys_out: Option<String>,
    /// Rejections by (BSS, station) and reason, with the message.
    rejections: BTreeMap<(MacAddr, MacAddr), BTreeMap<String, u64>>,
    /// Names of the tracker's credentials, in the order they were added.
    credential_names: Vec<String>,
    /// The credentials each link's PTKs came from.
    matched: BTreeMap<(MacAddr, MacAddr), std::collections::BTreeSet<usize>>,
}

impl TrackedKeys {
    /// A store over `given` and `tracker`; with `keys_out` every derived
    /// key is also written out in tshark's `80211_keys` form.
    pub fn new(given: StaticKeys, tracker: Tracker, keys_out: bool) -> TrackedKeys {
        TrackedKeys {
            given,
            tracker,
            names: HashMap::new(),
            batch: HashMap::new(),
            keys_out: keys_out.then(|| {
                "# Keys derived by wisec decrypt, in Wireshark's 80211_keys form:\n\
                 # \"key type\",\"key\". IGTKs have no key type there and are comments.\n"
                    .to_string()
            }),
            rejections: BTreeMap::new(),
            credential_names: Vec::new(),
            matched: BTreeMap::new(),
        }
    }

    /// Names the tracker's credentials for the summary (`--passphrase
    /// #2`), in the order they were added to it.
    pub fn name_credentials(&mut self, names: Vec<String>) {
        self.credential_names = names;
    }

    /// The credentials the PTKs of the link (BSS, station) came from.
    pub fn credentials_of(&self, aa: MacAddr, spa: MacAddr) -> Vec<String> {
        self.matched
            .get(&(aa, spa))
            .into_iter()
            .flatten()
            .map(|&i| {
                self.credential_names
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| format!("credential #{}", i + 1))
            })
            .collect()
    }

    /// The tracker.
    pub fn tracker(&self) -> &Tracker {
        &self.tracker
    }

    /// The `80211_keys` text collected so far.
    pub fn keys_out(&self) -> Option<&str> {
        self.keys_out.as_deref()
    }

    /// Per link (BSS, station): the tracker's counters and the rejection
    /// reasons with the message they concerned.
    pub fn link_reports(&self) -> Vec<(MacAddr, MacAddr, LinkStats, BTreeMap<String, u64>)> {
        self.tracker
            .links()
            .map(|(a, s, st)| {
                let r = self.rejections.get(&(a, s)).cloned().unwrap_or_default();
                (a, s, st.clone(), r)
            })
            .collect()
    }

    fn drain(&mut self) {
        while let Some(e) = self.tracker.poll_event() {
            match e {
                Event::PairwiseKey {
                    aa,
                    spa,
                    handle,
                    suite,
                    ptk,
                    pmk,
                    akm,
                    credential,
                    ..
                } => {
                    self.matched
                        .entry((aa, spa))
                        .or_default()
                        .insert(credential);
                    self.names.insert(
                        id_of(handle),
                        format!("PTK#{} {} {aa}-{spa}", handle.0, suite.name()),
                    );
                    if let Some(b) = BatchKey::new(suite, ptk.tk()) {
                        self.batch.insert(id_of(handle), b);
                    }
                    if let Some(o) = self.keys_out.as_mut() {
                        let _ = writeln!(
                            o,
                            "# PTK#{} {aa} {spa} AKM {:02x}-{:02x}-{:02x}:{} KCK {} KEK {}",
                            handle.0,
                            akm.oui[0],
                            akm.oui[1],
                            akm.oui[2],
                            akm.suite_type,
                            hex::encode(ptk.kck()),
                            hex::encode(ptk.kek())
                        );
                        let psk_line = format!("\"wpa-psk\",\"{}\"\n", hex::encode(&*pmk));
                        if !akm.is_ft() && matches!(pmk.len(), 32 | 48) && !o.contains(&psk_line) {
                            o.push_str(&psk_line);
                        }
                        let _ = writeln!(o, "\"tk\",\"{}\"", hex::encode(ptk.tk()));
                    }
                }
                Event::PairwiseKeyId { .. } => {}
                Event::GroupKey {
                    bssid,
                    handle,
                    key_id,
                    suite,
                    key,
                } => {
                    self.names.insert(
                        id_of(handle),
                        format!("GTK#{} id {key_id} {} {bssid}", handle.0, suite.name()),
                    );
                    if let Some(b) = BatchKey::new(suite, &key) {
                        self.batch.insert(id_of(handle), b);
                    }
                    if let Some(o) = self.keys_out.as_mut() {
                        let _ = writeln!(o, "# GTK#{} {bssid} key id {key_id}", handle.0);
                        let _ = writeln!(o, "\"tk\",\"{}\"", hex::encode(&*key));
                    }
                }
                Event::IntegrityGroupKey {
                    bssid,
                    handle,
                    key_id,
                    suite,
                    key,
                } => {
                    self.names.insert(
                        id_of(handle),
                        format!("IGTK#{} id {key_id} {} {bssid}", handle.0, suite.name()),
                    );
                    if let Some(o) = self.keys_out.as_mut() {
                        let _ = writeln!(
                            o,
                            "# IGTK#{} {bssid} key id {key_id} {} {}",
                            handle.0,
                            suite.name(),
                            hex::encode(&*key)
                        );
                    }
                }
                Event::Rejected {
                    aa,
                    spa,
                    message,
                    reason,
                } => {
                    *self
                        .rejections
                        .entry((aa, spa))
                        .or_default()
                        .entry(format!("{}: {}", message.name(), reason.reason()))
                        .or_default() += 1;
                    if self.rejections.len() > MAX_REJECTED_LINKS {
                        // Only the links the tracker still follows are
                        // reported: forget the others' rejections (the
                        // tracker's own limit keeps it bounded).
                        let live: std::collections::HashSet<(MacAddr, MacAddr)> =
                            self.tracker.links().map(|(a, s, _)| (a, s)).collect();
                        self.rejections.retain(|k, _| live.contains(k));
                    }
                }
            }
        }
    }
}

impl KeyStore for TrackedKeys {
    fn data_keys(&self, q: &KeyQuery<'_>) -> Vec<(KeyId, &DataKey)> {
        let mut v: Vec<(KeyId, &DataKey)> = Vec::new();
        if !q.wep {
            let id = (q.key_id & 3) as u8;
            if q.group {
                // Group-addressed frames come from the AP: TA is the BSSID.
                v.extend(
                    self.tracker
                        .group_keys(q.ta, id)
                        .map(|(h, k)| (id_of(h), k)),
                );
            } else {
                v.extend(
                    self.tracker
                        .pairwise_keys(q.ra, q.ta, id)
                        .map(|(h, k)| (id_of(h), k)),
                );
            }
        }
        v.extend(self.given.data_keys(q));
        v
    }

    fn bip_keys(&self, q: &KeyQuery<'_>) -> Vec<(KeyId, &BipKey)> {
        let mut v: Vec<(KeyId, &BipKey)> = self
            .tracker
            .integrity_keys(q.ta, q.key_id)
            .map(|(h, k)| (id_of(h), k))
            .collect();
        v.extend(self.given.bip_keys(q));
        v
    }

    fn observe(&mut self, mpdu: &[u8]) {
        self.tracker.observe(mpdu);
        self.drain();
    }

    fn no_key_reason(&self, q: &KeyQuery<'_>) -> &'static str {
        if q.wep {
            return "WEP frame and no WEP key given";
        }
        if self.tracker.is_empty() {
            return "no key given for this frame";
        }
        if q.group {
            if self.tracker.saw_handshake(q.ta, q.ta) || self.tracker.ssid(q.ta).is_some() {
                return "no GTK for this BSS and Key ID (no verified message 3 or group message)";
            }
            return "no GTK for this BSS and Key ID";
        }
        if !self.tracker.saw_handshake(q.ra, q.ta) {
            "no handshake seen for this station"
        } else if !self.tracker.has_ptk(q.ra, q.ta) {
            "handshake seen but no PTK verified (see the rejections)"
        } else {
            "no PTK for this Key ID"
        }
    }

    fn key_name(&self, id: KeyId) -> Option<String> {
        self.names
            .get(&id)
            .cloned()
            .or_else(|| self.given.key_name(id))
    }

    fn tkip_tk_only_keys(&self, q: &KeyQuery<'_>) -> Vec<(KeyId, &DangerTkipTkOnly)> {
        self.given.tkip_tk_only_keys(q)
    }

    fn key_generation(&self) -> Option<u64> {
        // The typed keys do not change while a capture streams.
        Some(self.tracker.key_generation())
    }

    fn batch_key(&self, id: KeyId) -> Option<&BatchKey> {
        if id.0 & TRACKED != 0 {
            self.batch.get(&id)
        } else {
            self.given.batch_key(id)
        }
    }
}
