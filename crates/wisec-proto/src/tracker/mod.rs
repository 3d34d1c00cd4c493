//! A passive RSN handshake tracker (IEEE Std 802.11-2020, 12.7).
//!
//! [`Tracker::observe`] is shown every frame of a capture in plaintext
//! (protected frames once unprotected). From beacons, probe responses and
//! (re)association frames it learns SSIDs, RSNEs, WPA elements and the
//! fast-transition context; from EAPOL-Key frames it follows 4-way and
//! group-key handshakes in both directions, for any number of stations and
//! BSSes, and derives the PTK, GTK and IGTK of each link from the
//! credentials it was given (passphrases, PSKs/PMKs, MSKs).
//!
//! Trust follows the MIC: a PTK candidate becomes a key only after the MIC
//! of message 2 (or 3) verified under it, key data is read only from
//! messages whose MIC verified, and an authenticator's replay counter
//! advances only after its MIC verified. A key that is already installed
//! is never installed again (message 3 retransmissions, the KRACK
//! lesson), and stale or replayed messages are rejected with a
//! [`Reject`] reason that [`Tracker::poll_event`] reports.
//!
//! Tolerated: retransmissions, a missing message 1 (message 2 waits for
//! message 3's ANonce), a missing message 4, rekeys with only messages 1
//! and 2, handshakes that arrive encrypted under the previous PTK (the
//! caller unprotects them first), Extended Key ID (two PTKs by Key ID,
//! 12.7.6.4), GTK and IGTK rekeys, the WPA element with TKIP and HMAC-MD5,
//! and FT initial mobility domain associations and over-the-air roams
//! (12.7.1.7, 13.8).

mod bounded;
mod msg;

use bounded::{Bounded, HoldsKeys};

pub use msg::{Fte, KeyMessage};

use crate::rsn::message::UnverifiedKeyFrame;
use alloc::collections::{BTreeMap, VecDeque};
use alloc::vec::Vec;
use core::fmt;
use wisec_crypto::eapol_mic::{self, MicAlgorithm};
use wisec_crypto::ft::PmkR0;
use wisec_crypto::kdf::{self, PassphraseError};
use wisec_crypto::keywrap;
use wisec_crypto::ptk::{KeyHierarchy, Pmk, Ptk};
use wisec_crypto::suite::{BipKey, DataKey, Suite};
use wisec_wire::eapol::{EapolFrame, KeyDescriptor, KeyFrame, PacketType};
use wisec_wire::element::{
    Akm, CipherSuite, ElementId, Rsne, WpaElement, OUI_IEEE80211, OUI_MICROSOFT,
};
use wisec_wire::llc::EtherType;
use wisec_wire::mgmt::{AuthAlgorithm, MgmtFrame, MgmtSubtype};
use wisec_wire::{DataFrame, FrameControl, KdeType, KeyDataItem, KeyDataIter, MacAddr};
use zeroize::Zeroizing;

/// Identifies one key the tracker installed; replay counters belong to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyHandle(pub u32);

/// Why the tracker did not act on a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reject {
    /// The EAPOL-Key frame is truncated or does not parse.
    Malformed,
    /// The AKM or cipher suite has no key hierarchy here.
    UnsupportedAkm,
    /// A passphrase was given but the SSID is unknown (no beacon, probe
    /// response or association request seen, no `ssid` given).
    NoSsid,
    /// No credential applies to the AKM.
    NoCredential,
    /// The MIC verified under no PMK derived from the credentials.
    NoPmkMatched,
    /// The MIC failed under the PTK of the handshake.
    MicFailure,
    /// A message that needs a PTK arrived before any PTK was derived.
    NoPtk,
    /// The replay counter is below the last one verified (12.7.2 e).
    Stale,
    /// The replay counter repeats the last one verified, with other content.
    Replayed,
    /// Key Data failed to decrypt (AES key unwrap integrity check).
    KeyDataUnwrap,
    /// Decrypted Key Data lacks a required KDE or holds a malformed one.
    KeyDataMalformed,
    /// The RSNE of message 3 differs from the beacon's (12.7.6.4), or
    /// with an FT AKM names another PMKR1Name than the one derived.
    RsneMismatch,
    /// An FT AKM without the mobility domain or key holder IDs.
    FtContextMissing,
}

impl Reject {
    /// A sentence for reports.
    pub const fn reason(self) -> &'static str {
        match self {
            Reject::Malformed => "EAPOL-Key frame truncated or malformed",
            Reject::UnsupportedAkm => "AKM or cipher suite not supported",
            Reject::NoSsid => "passphrase given but SSID unknown",
            Reject::NoCredential => "no credential for this AKM",
            Reject::NoPmkMatched => "no credential matched (wrong passphrase or PSK?)",
            Reject::MicFailure => "MIC failure under the handshake's PTK",
            Reject::NoPtk => "no PTK derived for this link yet",
            Reject::Stale => "stale replay counter",
            Reject::Replayed => "replayed replay counter",
            Reject::KeyDataUnwrap => "key data failed to unwrap",
            Reject::KeyDataMalformed => "key data malformed or missing a KDE",
            Reject::RsneMismatch => "RSNE in message 3 differs from the beacon's",
            Reject::FtContextMissing => "FT context (MDID, R0KH-ID, R1KH-ID) not seen",
        }
    }
}

impl fmt::Display for Reject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason())
    }
}

/// What the tracker learnt or refused.
#[derive(Debug, Clone)]
pub enum Event {
    /// A PTK verified by an EAPOL-Key MIC (or an FT MIC).
    PairwiseKey {
        /// Authenticator address.
        aa: MacAddr,
        /// Supplicant address.
        spa: MacAddr,
        /// The new key.
        handle: KeyHandle,
        /// Key ID (`None` until message 3 says, with Extended Key ID).
        key_id: Option<u8>,
        /// The pairwise suite.
        suite: Suite,
        /// The AKM.
        akm: Akm,
        /// The whole PTK (KCK, KEK, TK).
        ptk: Ptk,
        /// The PMK it came from (PMK-R1 for FT).
        pmk: Zeroizing<Vec<u8>>,
        /// The credential the PMK came from: its index in the order the
        /// credentials were added (passphrases, PMKs and MSKs together).
        credential: usize,
    },
    /// The Key ID of a PTK became known (Extended Key ID, 12.7.6.4).
    PairwiseKeyId {
        /// The key.
        handle: KeyHandle,
        /// Its Key ID.
        key_id: u8,
    },
    /// A GTK from a verified message.
    GroupKey {
        /// The BSS (authenticator address).
        bssid: MacAddr,
        /// The new key.
        handle: KeyHandle,
        /// Key ID 0 to 3.
        key_id: u8,
        /// The group suite.
        suite: Suite,
        /// The key.
        key: Zeroizing<Vec<u8>>,
    },
    /// An IGTK from a verified message.
    IntegrityGroupKey {
        /// The BSS.
        bssid: MacAddr,
        /// The new key.
        handle: KeyHandle,
        /// Key ID 4 or 5.
        key_id: u16,
        /// The BIP suite.
        suite: Suite,
        /// The key.
        key: Zeroizing<Vec<u8>>,
    },
    /// A frame the tracker refused, and why.
    Rejected {
        /// Authenticator address.
        aa: MacAddr,
        /// Supplicant address.
        spa: MacAddr,
        /// The message.
        message: KeyMessage,
        /// Why.
        reason: Reject,
    },
}

/// Counters of one link (authenticator, supplicant).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// EAPOL-Key frames seen.
    pub eapol_frames: u64,
    /// Handshakes started (distinct ANonces).
    pub handshakes_seen: u64,
    /// PTKs derived and verified by a MIC.
    pub ptks: u64,
    /// Handshakes whose message 3 verified (both sides proved the PTK).
    pub handshakes_complete: u64,
    /// Messages 4 verified.
    pub msg4: u64,
    /// FT roams whose reassociation MIC verified.
    pub ft_roams: u64,
    /// Group key handshakes verified.
    pub group_rekeys: u64,
    /// Retransmitted messages recognised (no key reinstalled).
    pub retransmissions: u64,
    /// Rejected messages by reason.
    pub rejected: BTreeMap<Reject, u64>,
}

enum Credential {
    Passphrase {
        passphrase: Zeroizing<Vec<u8>>,
        ssid: Option<Vec<u8>>,
    },
    Pmk(Pmk),
    Msk(Zeroizing<Vec<u8>>),
}

struct GroupKey {
    handle: KeyHandle,
    key_id: u8,
    bytes: Zeroizing<Vec<u8>>,
    key: DataKey,
}

struct IntegrityKey {
    handle: KeyHandle,
    key_id: u16,
    bytes: Zeroizing<Vec<u8>>,
    key: BipKey,
}

#[derive(Default)]
struct Bss {
    ssid: Option<Vec<u8>>,
    rsne: Option<Vec<u8>>,
    group: Option<CipherSuite>,
    mgmt: Option<CipherSuite>,
    mdid: Option<[u8; 2]>,
    gtks: Vec<GroupKey>,
    igtks: Vec<IntegrityKey>,
}

struct PairKey {
    handle: KeyHandle,
    key_id: Option<u8>,
    anonce: [u8; 32],
    snonce: [u8; 32],
    ptk: Ptk,
    key: DataKey,
    confirmed: bool,
    m3_replay: Option<u64>,
    /// The MIC of the last message 3 verified, to tell a MAC retry.
    m3_mic: [u8; 32],
    /// PMKR1Name of an FT PTK (12.7.1.7.4), which message 3's RSNE names.
    pmkr1_name: Option<[u8; 16]>,
}

#[derive(Default)]
struct FtContext {
    r0kh_id: Option<Vec<u8>>,
    r1kh_id: Option<MacAddr>,
    /// ANonce and SNonce of an FT authentication exchange.
    nonces: Option<([u8; 32], [u8; 32])>,
}

#[derive(Default)]
struct Link {
    akm: Option<Akm>,
    pairwise: Option<CipherSuite>,
    group: Option<CipherSuite>,
    mgmt: Option<CipherSuite>,
    anonces: Vec<(u64, [u8; 32])>,
    pending_m2: Option<Vec<u8>>,
    ptks: Vec<PairKey>,
    last_ap_replay: Option<u64>,
    last_group_replay: Option<u64>,
    ft: FtContext,
    stats: LinkStats,
}

/// Most PTKs kept per link (newest first): the current and previous keys
/// of both Key IDs.
const MAX_PTKS: usize = 4;
/// Most GTKs or IGTKs kept per BSS.
const MAX_GROUP_KEYS: usize = 8;
/// Most ANonces remembered per link.
const MAX_ANONCES: usize = 4;
/// Longest EAPOL-Key frame kept while waiting for message 3.
const MAX_PENDING: usize = 2048;

/// Most PSKs derived from passphrases kept (one per passphrase and SSID).
const MAX_PSKS: usize = 64;
/// Most events queued: beyond it new [`Event::Rejected`] reports are
/// dropped (and counted), never key events.
const MAX_QUEUED_REJECTS: usize = 4096;

/// How many links and BSSes a [`Tracker`] keeps. Past a limit, the least
/// recently seen entries without keys make room first; entries with keys
/// go only when no keyless entry is left. The defaults hold far more
/// stations than any real capture has, and bound the tracker's memory to
/// a few tens of megabytes whatever it is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Links (authenticator, supplicant).
    pub links: usize,
    /// BSSes.
    pub bsses: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            links: 16_384,
            bsses: 16_384,
        }
    }
}

/// What the tracker dropped to stay within its [`Limits`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dropped {
    /// Links dropped to make room.
    pub links: u64,
    /// Of those, links that held a PTK.
    pub links_with_keys: u64,
    /// BSSes dropped to make room.
    pub bsses: u64,
    /// Rejection reports not queued (more than 4096 waiting).
    pub reject_events: u64,
}

/// The passive handshake tracker. See the [module documentation](self).
pub struct Tracker {
    creds: Vec<Credential>,
    psks: VecDeque<(usize, Vec<u8>, Pmk)>,
    bsses: Bounded<MacAddr, Bss>,
    links: Bounded<(MacAddr, MacAddr), Link>,
    events: VecDeque<Event>,
    next_handle: u32,
    /// Counts every change of the keys the lookups return.
    key_changes: u64,
    rejects_dropped: u64,
}

impl Default for Tracker {
    fn default() -> Tracker {
        let l = Limits::default();
        Tracker {
            creds: Vec::new(),
            psks: VecDeque::new(),
            bsses: Bounded::new(l.bsses),
            links: Bounded::new(l.links),
            events: VecDeque::new(),
            next_handle: 0,
            key_changes: 0,
            rejects_dropped: 0,
        }
    }
}

impl HoldsKeys for Link {
    fn holds_keys(&self) -> bool {
        !self.ptks.is_empty()
    }
}

impl HoldsKeys for Bss {
    fn holds_keys(&self) -> bool {
        !self.gtks.is_empty() || !self.igtks.is_empty()
    }
}

impl fmt::Debug for Tracker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tracker")
            .field("credentials", &self.creds.len())
            .field("bsses", &self.bsses.len())
            .field("links", &self.links.len())
            .finish_non_exhaustive()
    }
}

/// The suite of this crate for a pairwise or group cipher selector.
pub fn suite_of(c: CipherSuite) -> Option<Suite> {
    if c.oui == OUI_MICROSOFT {
        return match c.suite_type {
            1 => Some(Suite::Wep40),
            2 => Some(Suite::Tkip),
            4 => Some(Suite::Ccmp128),
            5 => Some(Suite::Wep104),
            _ => None,
        };
    }
    if c.oui != OUI_IEEE80211 {
        return None;
    }
    Suite::from_selector(c.suite_type)
}

fn is_psk_akm(akm: Akm) -> bool {
    akm == Akm::WPA_PSK
        || (akm.oui == OUI_IEEE80211 && matches!(akm.suite_type, 2 | 4 | 6 | 19 | 20))
}

/// The PMK (or, for FT, the XXKey) an MSK gives for an 802.1X AKM
/// (12.7.1.3; 12.7.1.7.3).
fn msk_key(akm: Akm, msk: &[u8]) -> Option<&[u8]> {
    if akm == Akm::WPA_IEEE8021X {
        return msk.get(..32);
    }
    if akm.oui != OUI_IEEE80211 {
        return None;
    }
    match akm.suite_type {
        1 | 5 | 11 => msk.get(..32),
        12 | 13 => msk.get(..48),
        // FT over 802.1X: XXKey is the second 256 bits of the MSK.
        3 => msk.get(32..64),
        _ => None,
    }
}

fn rsn_params(rsne: &Rsne<'_>) -> (Option<Akm>, Option<CipherSuite>, CipherSuite, CipherSuite) {
    (
        rsne.akms_or_default().first(),
        rsne.pairwise_or_default().first(),
        rsne.group_data_cipher_or_default(),
        rsne.group_mgmt_cipher_or_default(),
    )
}

fn wpa_params(w: &WpaElement<'_>) -> (Option<Akm>, Option<CipherSuite>, CipherSuite) {
    (
        w.akms.and_then(|l| l.first()).or(Some(Akm::WPA_IEEE8021X)),
        w.pairwise
            .and_then(|l| l.first())
            .or(Some(CipherSuite::WPA_TKIP)),
        w.group_cipher.unwrap_or(CipherSuite::WPA_TKIP),
    )
}

/// Key material wiped on drop.
type Secret = Zeroizing<Vec<u8>>;

/// A PTK a handshake may have used, and where it came from.
struct Candidate {
    ptk: Ptk,
    /// The PMK (PMK-R1 for FT).
    pmk: Zeroizing<Vec<u8>>,
    /// PMKR1Name (FT only).
    pmkr1_name: Option<[u8; 16]>,
    /// Index of the credential.
    credential: usize,
}

/// An EAPOL-Key frame parsed with the MIC length that fits it.
struct Parsed<'a> {
    frame: KeyFrame<&'a [u8]>,
    message: KeyMessage,
}

fn parse_key<'a>(pdu: &'a [u8], akm: Option<Akm>) -> Option<Parsed<'a>> {
    let e = EapolFrame::new_checked(pdu).ok()?;
    if e.packet_type() != PacketType::Key {
        return None;
    }
    let preferred = akm.and_then(|a| a.mic_len()).unwrap_or(16);
    let mut frame = None;
    for mic_len in [preferred, 16, 24, 32] {
        if let Ok(f) = KeyFrame::new_checked(pdu, mic_len) {
            frame = Some(f);
            break;
        }
    }
    let frame = frame?;
    let message =
        KeyMessage::classify(frame.key_info(), &frame.key_nonce(), frame.key_data().len());
    Some(Parsed { frame, message })
}

impl Tracker {
    /// A tracker with no credentials.
    pub fn new() -> Tracker {
        Tracker::default()
    }

    /// Adds a passphrase (8 to 63 printable ASCII characters). Without
    /// `ssid` the SSID of each BSS comes from its beacons, probe responses
    /// or association requests.
    pub fn add_passphrase(
        &mut self,
        passphrase: &[u8],
        ssid: Option<&[u8]>,
    ) -> Result<(), PassphraseError> {
        kdf::check_passphrase(passphrase, ssid.unwrap_or(b""))?;
        self.creds.push(Credential::Passphrase {
            passphrase: Zeroizing::new(passphrase.to_vec()),
            ssid: ssid.map(<[u8]>::to_vec),
        });
        Ok(())
    }

    /// Adds a PMK of 32, 48 or 64 octets (a PSK, or the PMK of SAE, OWE
    /// or 802.1X), tried with every AKM.
    pub fn add_pmk(&mut self, pmk: &[u8]) -> Result<(), wisec_crypto::Error> {
        self.creds.push(Credential::Pmk(Pmk::new(pmk)?));
        Ok(())
    }

    /// Adds an MSK (at least 64 octets) for the 802.1X AKMs.
    pub fn add_msk(&mut self, msk: &[u8]) -> Result<(), wisec_crypto::Error> {
        if msk.len() < 64 {
            return Err(wisec_crypto::Error::InvalidParameter);
        }
        self.creds
            .push(Credential::Msk(Zeroizing::new(msk.to_vec())));
        Ok(())
    }

    /// True when no credential was given.
    pub fn is_empty(&self) -> bool {
        self.creds.is_empty()
    }

    /// The next event, oldest first.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Every link seen, as (authenticator, supplicant, counters).
    pub fn links(&self) -> impl Iterator<Item = (MacAddr, MacAddr, &LinkStats)> + '_ {
        self.links.iter().map(|((a, s), l)| (*a, *s, &l.stats))
    }

    /// The SSID learnt for a BSS.
    pub fn ssid(&self, bssid: MacAddr) -> Option<&[u8]> {
        self.bsses.get(&bssid).and_then(|b| b.ssid.as_deref())
    }

    /// True when the link between `a` and `b` (either order) has a PTK.
    pub fn has_ptk(&self, a: MacAddr, b: MacAddr) -> bool {
        self.link_of(a, b).is_some_and(|l| !l.ptks.is_empty())
    }

    /// True when an EAPOL-Key frame of the link between `a` and `b` was
    /// seen.
    pub fn saw_handshake(&self, a: MacAddr, b: MacAddr) -> bool {
        self.link_of(a, b).is_some_and(|l| l.stats.eapol_frames > 0)
    }

    fn link_of(&self, a: MacAddr, b: MacAddr) -> Option<&Link> {
        self.links.get(&(a, b)).or_else(|| self.links.get(&(b, a)))
    }

    /// A number that changes whenever a key is installed, dropped or given
    /// a Key ID: the answers of [`Tracker::pairwise_keys`],
    /// [`Tracker::group_keys`] and [`Tracker::integrity_keys`] stay the
    /// same while it does.
    pub fn key_generation(&self) -> u64 {
        self.key_changes + self.links.evicted_keyed + self.bsses.evicted_keyed
    }

    /// Sets how many links and BSSes are kept (at least one of each).
    pub fn set_limits(&mut self, limits: Limits) {
        self.links.set_limit(limits.links);
        self.bsses.set_limit(limits.bsses);
    }

    /// Number of BSSes known.
    pub fn bss_count(&self) -> usize {
        self.bsses.len()
    }

    /// What was dropped to stay within the limits.
    pub fn dropped(&self) -> Dropped {
        Dropped {
            links: self.links.evicted,
            links_with_keys: self.links.evicted_keyed,
            bsses: self.bsses.evicted,
            reject_events: self.rejects_dropped,
        }
    }

    /// The PTKs of the link between `a` and `b` (either order) for Key ID
    /// `key_id`, newest first.
    pub fn pairwise_keys(
        &self,
        a: MacAddr,
        b: MacAddr,
        key_id: u8,
    ) -> impl Iterator<Item = (KeyHandle, &DataKey)> + '_ {
        self.link_of(a, b)
            .into_iter()
            .flat_map(|l| l.ptks.iter())
            .filter(move |k| k.key_id.is_none_or(|id| id == key_id))
            .map(|k| (k.handle, &k.key))
    }

    /// The GTKs of the BSS `bssid` for Key ID `key_id`, newest first.
    pub fn group_keys(
        &self,
        bssid: MacAddr,
        key_id: u8,
    ) -> impl Iterator<Item = (KeyHandle, &DataKey)> + '_ {
        self.bsses
            .get(&bssid)
            .into_iter()
            .flat_map(|b| b.gtks.iter())
            .filter(move |k| k.key_id == key_id)
            .map(|k| (k.handle, &k.key))
    }

    /// The IGTKs of the BSS `bssid` for Key ID `key_id`, newest first.
    pub fn integrity_keys(
        &self,
        bssid: MacAddr,
        key_id: u16,
    ) -> impl Iterator<Item = (KeyHandle, &BipKey)> + '_ {
        self.bsses
            .get(&bssid)
            .into_iter()
            .flat_map(|b| b.igtks.iter())
            .filter(move |k| k.key_id == key_id)
            .map(|k| (k.handle, &k.key))
    }

    fn handle(&mut self) -> KeyHandle {
        self.next_handle = self.next_handle.wrapping_add(1);
        KeyHandle(self.next_handle)
    }

    /// Shows the tracker one MPDU (MAC header and body, no FCS), in
    /// plaintext. Frames it has no use for are ignored; nothing panics.
    pub fn observe(&mut self, mpdu: &[u8]) {
        let Some(fc) = mpdu
            .get(..2)
            .map(|b| FrameControl::from_bytes([b[0], b[1]]))
        else {
            return;
        };
        if fc.protected() {
            return;
        }
        if fc.is_mgmt() {
            self.observe_mgmt(mpdu);
        } else if fc.is_data() {
            // Nearly every data frame is no EAPOL frame: its LLC/SNAP
            // EtherType says so before the header is checked.
            let f = DataFrame::new_unchecked(mpdu);
            if !may_carry_eapol(&f)
                || f.check_len().is_err()
                || f.ethertype() != Some(EtherType::EAPOL)
            {
                return;
            }
            let h = f.header();
            let (Some(ta), ra) = (h.ta(), h.ra()) else {
                return;
            };
            self.observe_eapol(ta, ra, f.msdu_payload());
        }
    }

    fn observe_mgmt(&mut self, mpdu: &[u8]) {
        let Ok(m) = MgmtFrame::new_checked(mpdu) else {
            return;
        };
        let h = m.header();
        let (Some(ta), ra, Some(bssid)) = (h.ta(), h.ra(), h.bssid()) else {
            return;
        };
        let els = m.elements();
        match m.subtype() {
            MgmtSubtype::Beacon | MgmtSubtype::ProbeResponse => {
                let bss = self.bsses.or_default(bssid);
                if let Some(s) = els.clone().ssid() {
                    // Hidden networks send an empty or zeroed SSID.
                    if !s.is_empty() && s.iter().any(|&c| c != 0) {
                        bss.ssid = Some(s.to_vec());
                    }
                }
                if let Some(e) = els.clone().find_id(ElementId::RSN) {
                    if let Ok(r) = Rsne::parse(e.data) {
                        let (_, _, g, m) = rsn_params(&r);
                        bss.group = Some(g);
                        bss.mgmt = Some(m);
                        bss.rsne = Some(e.data.to_vec());
                    }
                } else if let Some(Ok(w)) = els.clone().wpa() {
                    bss.group = Some(wpa_params(&w).2);
                }
                if let Some(e) = els.find_id(ElementId::MOBILITY_DOMAIN) {
                    if let Some(md) = e.data.get(..2) {
                        bss.mdid = Some([md[0], md[1]]);
                    }
                }
            }
            MgmtSubtype::AssocRequest | MgmtSubtype::ReassocRequest => {
                if let Some(s) = els.clone().ssid() {
                    if !s.is_empty() {
                        let bss = self.bsses.or_default(bssid);
                        bss.ssid.get_or_insert_with(|| s.to_vec());
                    }
                }
                let link = self.links.or_default((ra, ta));
                // A new association starts new key replay counters: the
                // authenticator sets its counter anew for the new
                // association's handshakes (12.7.2 b.2; what hostapd does),
                // so message 3 of the next handshake may carry a counter
                // below the last one seen. Keys stay installed; none is
                // installed again (a confirmed PTK's message 3 is a
                // retransmission, a GTK already held is not reinstalled).
                link.last_ap_replay = None;
                link.last_group_replay = None;
                if let Some(Ok(r)) = els.clone().rsne() {
                    let (a, p, g, m) = rsn_params(&r);
                    link.akm = a;
                    link.pairwise = p;
                    link.group = Some(g);
                    link.mgmt = Some(m);
                } else if let Some(Ok(w)) = els.clone().wpa() {
                    let (a, p, g) = wpa_params(&w);
                    link.akm = a;
                    link.pairwise = p;
                    link.group = Some(g);
                }
                if m.subtype() == MgmtSubtype::ReassocRequest {
                    self.ft_reassoc(ra, ta, mpdu, 5);
                }
            }
            MgmtSubtype::AssocResponse | MgmtSubtype::ReassocResponse => {
                let mic_len = self
                    .link_akm(ta, ra)
                    .and_then(|a| a.mic_len())
                    .unwrap_or(16);
                if let Some(e) = els.clone().find_id(ElementId::MOBILITY_DOMAIN) {
                    if let Some(md) = e.data.get(..2) {
                        self.bsses.or_default(bssid).mdid = Some([md[0], md[1]]);
                    }
                }
                if let Some(e) = els.find_id(ElementId::FAST_BSS_TRANSITION) {
                    if let Some(f) = Fte::parse(e.data, mic_len) {
                        let link = self.links.or_default((ta, ra));
                        if let Some(r0) = f.r0kh_id {
                            link.ft.r0kh_id = Some(r0.to_vec());
                        }
                        if f.r1kh_id.is_some() {
                            link.ft.r1kh_id = f.r1kh_id;
                        }
                    }
                }
                if m.subtype() == MgmtSubtype::ReassocResponse {
                    self.ft_reassoc(ta, ra, mpdu, 6);
                }
            }
            MgmtSubtype::Authentication => {
                let ok = m.status_code().is_some_and(|s| s.0 == 0);
                if m.auth_algorithm() == Some(AuthAlgorithm::FastBssTransition)
                    && m.auth_seq() == Some(2)
                    && ok
                {
                    self.ft_auth_response(ta, ra, &m);
                }
            }
            _ => {}
        }
    }

    fn link_akm(&self, aa: MacAddr, spa: MacAddr) -> Option<Akm> {
        self.links.get(&(aa, spa)).and_then(|l| l.akm)
    }

    fn reject(&mut self, aa: MacAddr, spa: MacAddr, message: KeyMessage, reason: Reject) {
        let link = self.links.or_default((aa, spa));
        *link.stats.rejected.entry(reason).or_default() += 1;
        if self.events.len() >= MAX_QUEUED_REJECTS {
            self.rejects_dropped += 1;
            return;
        }
        self.events.push_back(Event::Rejected {
            aa,
            spa,
            message,
            reason,
        });
    }

    /// Handles an EAPOL PDU sent by `ta` to `ra`.
    pub fn observe_eapol(&mut self, ta: MacAddr, ra: MacAddr, pdu: &[u8]) {
        // The Key Ack bit tells the authenticator's messages (12.7.2 b.5),
        // whatever the DS bits say (IBSS and mesh have none).
        let ack = pdu.get(5..7).is_some_and(|b| b[1] & 0x80 != 0);
        let (aa, spa) = if ack { (ta, ra) } else { (ra, ta) };
        let is_key = EapolFrame::new_checked(pdu).is_ok_and(|e| e.packet_type() == PacketType::Key);
        if !is_key {
            if pdu.get(1) == Some(&3) {
                // Packet type Key, yet no EAPOL header fits.
                let m = if ack { KeyMessage::M1 } else { KeyMessage::M2 };
                self.reject(aa, spa, m, Reject::Malformed);
            }
            return;
        }
        let akm = self.link_akm(aa, spa);
        self.links.or_default((aa, spa)).stats.eapol_frames += 1;
        let Some(p) = parse_key(pdu, akm) else {
            let m = if ack { KeyMessage::M1 } else { KeyMessage::M2 };
            self.reject(aa, spa, m, Reject::Malformed);
            return;
        };
        match p.message {
            KeyMessage::M1 => self.on_m1(aa, spa, &p),
            KeyMessage::M2 => self.on_m2(aa, spa, &p),
            KeyMessage::M3 => self.on_m3(aa, spa, &p),
            KeyMessage::M4 => self.on_m4(aa, spa, &p),
            KeyMessage::Group1 => self.on_group1(aa, spa, &p),
            KeyMessage::Group2 | KeyMessage::Request => {}
        }
    }

    fn on_m1(&mut self, aa: MacAddr, spa: MacAddr, p: &Parsed<'_>) {
        let anonce = p.frame.key_nonce();
        let rc = p.frame.replay_counter();
        let link = self.links.or_default((aa, spa));
        if link.anonces.iter().any(|(_, n)| *n == anonce) {
            link.stats.retransmissions += 1;
            if let Some(e) = link.anonces.iter_mut().find(|(_, n)| *n == anonce) {
                e.0 = rc;
            }
            return;
        }
        // Message 1 carries no MIC: remember its ANonce, trust nothing.
        link.stats.handshakes_seen += 1;
        link.anonces.insert(0, (rc, anonce));
        link.anonces.truncate(MAX_ANONCES);
    }

    /// The PMKs (or FT XXKeys) the credentials give for `akm` in `bssid`,
    /// each with the index of its credential.
    fn pmks(&mut self, akm: Akm, bssid: MacAddr) -> Result<Vec<(usize, Secret)>, Reject> {
        let ssid = self.bsses.get(&bssid).and_then(|b| b.ssid.clone());
        let mut out = Vec::new();
        let mut no_ssid = false;
        for (i, c) in self.creds.iter().enumerate() {
            match c {
                Credential::Passphrase {
                    passphrase,
                    ssid: given,
                } => {
                    if !is_psk_akm(akm) {
                        continue;
                    }
                    let Some(s) = given.as_ref().or(ssid.as_ref()) else {
                        no_ssid = true;
                        continue;
                    };
                    if let Some((_, _, pmk)) = self.psks.iter().find(|(j, t, _)| *j == i && t == s)
                    {
                        out.push((i, Zeroizing::new(pmk.as_bytes().to_vec())));
                        continue;
                    }
                    // IEEE Std 802.11-2020, J.4.1: PSK = PBKDF2(passphrase, SSID).
                    if let Ok(pmk) = kdf::psk(passphrase, s) {
                        out.push((i, Zeroizing::new(pmk.as_bytes().to_vec())));
                        if self.psks.len() >= MAX_PSKS {
                            self.psks.pop_front();
                        }
                        self.psks.push_back((i, s.clone(), pmk));
                    }
                }
                Credential::Pmk(pmk) => out.push((i, Zeroizing::new(pmk.as_bytes().to_vec()))),
                Credential::Msk(msk) => {
                    if let Some(k) = msk_key(akm, msk) {
                        out.push((i, Zeroizing::new(k.to_vec())));
                    }
                }
            }
        }
        if out.is_empty() {
            return Err(if no_ssid {
                Reject::NoSsid
            } else {
                Reject::NoCredential
            });
        }
        Ok(out)
    }

    /// Candidate PTKs of a handshake, each with the PMK it came from.
    fn candidates(
        &mut self,
        aa: MacAddr,
        spa: MacAddr,
        akm: Akm,
        pairwise: CipherSuite,
        anonce: &[u8; 32],
        snonce: &[u8; 32],
    ) -> Result<Vec<Candidate>, Reject> {
        let keys = self.pmks(akm, aa)?;
        let mut out = Vec::new();
        if akm.is_ft() {
            // IEEE Std 802.11-2020, 12.7.1.7: PMK-R0 from XXKey, PMK-R1
            // for this AP, the FT PTK from the nonces.
            let ssid = self.bsses.get(&aa).and_then(|b| b.ssid.clone());
            let mdid = self.bsses.get(&aa).and_then(|b| b.mdid);
            let link = self.links.or_default((aa, spa));
            let (Some(ssid), Some(mdid), Some(r0kh)) = (ssid, mdid, link.ft.r0kh_id.clone()) else {
                return Err(Reject::FtContextMissing);
            };
            let r1kh = link.ft.r1kh_id.unwrap_or(aa);
            for (credential, xx) in keys {
                let Ok(r0) = PmkR0::derive(akm, &xx, &ssid, mdid, &r0kh, spa) else {
                    continue;
                };
                let Ok(r1) = r0.pmk_r1(r1kh, spa) else {
                    continue;
                };
                if let Ok((ptk, _name)) = r1.ptk(akm, pairwise, snonce, anonce, aa, spa) {
                    out.push(Candidate {
                        ptk,
                        pmk: Zeroizing::new(r1.key().to_vec()),
                        pmkr1_name: Some(*r1.name()),
                        credential,
                    });
                }
            }
        } else {
            for (credential, pmk) in keys {
                match Ptk::derive(akm, pairwise, &pmk, aa, spa, anonce, snonce) {
                    Ok(ptk) => out.push(Candidate {
                        ptk,
                        pmk,
                        pmkr1_name: None,
                        credential,
                    }),
                    Err(_) => return Err(Reject::UnsupportedAkm),
                }
            }
        }
        Ok(out)
    }

    /// The link's AKM and pairwise cipher, from what was seen or from the
    /// RSNE/WPA element in message 2's Key Data.
    fn learn_from_m2(&mut self, aa: MacAddr, spa: MacAddr, p: &Parsed<'_>) {
        let wpa = p.frame.descriptor_type() == KeyDescriptor::Wpa;
        let mut found = None;
        for item in KeyDataIter::new(p.frame.key_data()).map_while(|i| i.ok()) {
            if let KeyDataItem::Element(e) = item {
                if e.id == ElementId::RSN.0 {
                    if let Ok(r) = Rsne::parse(e.data) {
                        let (a, pw, g, m) = rsn_params(&r);
                        found = Some((a, pw, g, Some(m)));
                        break;
                    }
                } else if wpa {
                    if let Ok(w) = WpaElement::from_element(e) {
                        let (a, pw, g) = wpa_params(&w);
                        found = Some((a, pw, g, None));
                        break;
                    }
                }
            }
        }
        let link = self.links.or_default((aa, spa));
        if let Some((a, pw, g, m)) = found {
            link.akm = a.or(link.akm);
            link.pairwise = pw.or(link.pairwise);
            link.group = Some(g);
            link.mgmt = m.or(link.mgmt);
        }
    }

    fn mic_alg(
        version: u8,
        akm: Akm,
        pairwise: CipherSuite,
        pmk_len: usize,
    ) -> Option<MicAlgorithm> {
        MicAlgorithm::from_descriptor_version(version).or_else(|| {
            KeyHierarchy::for_akm(akm, pairwise, pmk_len)
                .ok()
                .map(|h| h.mic)
        })
    }

    fn on_m2(&mut self, aa: MacAddr, spa: MacAddr, p: &Parsed<'_>) {
        self.learn_from_m2(aa, spa, p);
        let snonce = p.frame.key_nonce();
        let rc = p.frame.replay_counter();
        let link = self.links.or_default((aa, spa));
        if link.ptks.iter().any(|k| k.snonce == snonce) {
            link.stats.retransmissions += 1;
            return;
        }
        let mut anonces: Vec<[u8; 32]> = Vec::new();
        // The message 1 this message answers first (same replay counter).
        for (r, n) in &link.anonces {
            if *r == rc {
                anonces.push(*n);
            }
        }
        for (r, n) in &link.anonces {
            if *r != rc {
                anonces.push(*n);
            }
        }
        if anonces.is_empty() {
            // No message 1 seen: wait for message 3's ANonce.
            let pdu = p.frame.pdu();
            if pdu.len() <= MAX_PENDING {
                link.pending_m2 = Some(pdu.to_vec());
            }
            return;
        }
        let pdu = p.frame.pdu().to_vec();
        match self.verify_m2(aa, spa, &pdu, &anonces) {
            Ok(_) => {}
            Err(r) => {
                let link = self.links.or_default((aa, spa));
                if pdu.len() <= MAX_PENDING {
                    link.pending_m2 = Some(pdu);
                }
                self.reject(aa, spa, KeyMessage::M2, r);
            }
        }
    }

    /// Derives and checks PTK candidates for message 2 `pdu` against each
    /// ANonce; installs the one whose MIC verifies.
    fn verify_m2(
        &mut self,
        aa: MacAddr,
        spa: MacAddr,
        pdu: &[u8],
        anonces: &[[u8; 32]],
    ) -> Result<usize, Reject> {
        let akm0 = self.link_akm(aa, spa);
        let p = parse_key(pdu, akm0).ok_or(Reject::Malformed)?;
        let link = self.links.or_default((aa, spa));
        let (Some(akm), Some(pairwise)) = (link.akm, link.pairwise) else {
            return Err(Reject::UnsupportedAkm);
        };
        let Some(suite) = suite_of(pairwise) else {
            return Err(Reject::UnsupportedAkm);
        };
        let snonce = p.frame.key_nonce();
        let version = p.frame.key_info().descriptor_version().to_u8();
        for anonce in anonces {
            let cands = self.candidates(aa, spa, akm, pairwise, anonce, &snonce)?;
            for c in cands {
                let Some(alg) = Self::mic_alg(version, akm, pairwise, c.pmk.len()) else {
                    return Err(Reject::UnsupportedAkm);
                };
                if alg.mic_len() != p.frame.mic_len() {
                    continue;
                }
                // IEEE Std 802.11-2020, 12.7.6.3: message 2's MIC under
                // the KCK proves the supplicant holds the PMK.
                let unverified = UnverifiedKeyFrame::parse(p.frame.pdu(), p.frame.mic_len())
                    .map_err(|_| Reject::Malformed)?;
                if unverified.verify_mic(alg, c.ptk.kck()).is_ok() {
                    let idx = self.install_ptk(aa, spa, akm, suite, *anonce, snonce, c)?;
                    return Ok(idx);
                }
            }
        }
        Err(Reject::NoPmkMatched)
    }

    #[allow(clippy::too_many_arguments)]
    fn install_ptk(
        &mut self,
        aa: MacAddr,
        spa: MacAddr,
        akm: Akm,
        suite: Suite,
        anonce: [u8; 32],
        snonce: [u8; 32],
        c: Candidate,
    ) -> Result<usize, Reject> {
        let Candidate {
            ptk,
            pmk,
            pmkr1_name,
            credential,
        } = c;
        let key = DataKey::new(suite, ptk.tk()).map_err(|_| Reject::UnsupportedAkm)?;
        let handle = self.handle();
        let link = self.links.or_default((aa, spa));
        link.stats.ptks += 1;
        link.pending_m2 = None;
        link.ptks.insert(
            0,
            PairKey {
                handle,
                key_id: None,
                anonce,
                snonce,
                ptk: ptk.clone(),
                key,
                confirmed: false,
                m3_replay: None,
                m3_mic: [0; 32],
                pmkr1_name,
            },
        );
        link.ptks.truncate(MAX_PTKS);
        self.key_changes += 1;
        self.events.push_back(Event::PairwiseKey {
            aa,
            spa,
            handle,
            key_id: None,
            suite,
            akm,
            ptk,
            pmk,
            credential,
        });
        Ok(0)
    }

    /// Checks an authenticator's replay counter against the last one
    /// verified (12.7.2 e): `Ok(true)` when fresh, `Ok(false)` when equal.
    fn replay_check(last: Option<u64>, rc: u64) -> Result<bool, Reject> {
        match last {
            Some(l) if rc < l => Err(Reject::Stale),
            Some(l) if rc == l => Ok(false),
            _ => Ok(true),
        }
    }

    fn on_m3(&mut self, aa: MacAddr, spa: MacAddr, p: &Parsed<'_>) {
        let anonce = p.frame.key_nonce();
        let rc = p.frame.replay_counter();
        let link = self.links.or_default((aa, spa));
        if !link.anonces.iter().any(|(_, n)| *n == anonce)
            && !link.ptks.iter().any(|k| k.anonce == anonce)
        {
            link.stats.handshakes_seen += 1;
            link.anonces.insert(0, (rc.saturating_sub(1), anonce));
            link.anonces.truncate(MAX_ANONCES);
        }
        // A PTK for this ANonce, or one from a message 2 that waited.
        let mut idx = link.ptks.iter().position(|k| k.anonce == anonce);
        if idx.is_none() {
            if let Some(m2) = link.pending_m2.take() {
                match self.verify_m2(aa, spa, &m2, &[anonce]) {
                    Ok(i) => idx = Some(i),
                    Err(r) => {
                        // The waiting message 2 gives no PTK with this
                        // ANonce either: message 3 cannot be checked.
                        self.reject(aa, spa, KeyMessage::M3, r);
                        return;
                    }
                }
            }
        }
        let Some(i) = idx else {
            self.reject(aa, spa, KeyMessage::M3, Reject::NoPtk);
            return;
        };
        let link = self.links.or_default((aa, spa));
        let Some(k) = link.ptks.get(i) else {
            return;
        };
        let (Some(akm), Some(pairwise)) = (link.akm, link.pairwise) else {
            return;
        };
        let version = p.frame.key_info().descriptor_version().to_u8();
        let Some(alg) = Self::mic_alg(version, akm, pairwise, 32) else {
            self.reject(aa, spa, KeyMessage::M3, Reject::UnsupportedAkm);
            return;
        };
        // IEEE Std 802.11-2020, 12.7.6.4: the MIC first, then the counter.
        let verified = UnverifiedKeyFrame::parse(p.frame.pdu(), p.frame.mic_len())
            .and_then(|u| u.verify_mic(alg, k.ptk.kck()));
        let Ok(verified) = verified else {
            self.reject(aa, spa, KeyMessage::M3, Reject::MicFailure);
            return;
        };
        let fresh = match Self::replay_check(link.last_ap_replay, rc) {
            Ok(f) => f,
            Err(r) => {
                self.reject(aa, spa, KeyMessage::M3, r);
                return;
            }
        };
        if !fresh {
            let same = k.m3_mic.get(..p.frame.mic().len()) == Some(p.frame.mic());
            if k.confirmed && k.m3_replay == Some(rc) && same {
                // The same message again (a MAC retransmission).
                link.stats.retransmissions += 1;
            } else {
                self.reject(aa, spa, KeyMessage::M3, Reject::Replayed);
            }
            return;
        }
        link.last_ap_replay = Some(rc);
        if k.confirmed {
            // A message 3 retransmission with a new counter: the keys are
            // already in place and are not installed again (no replay
            // counter reset: the KRACK lesson).
            if let Some(k) = link.ptks.get_mut(i) {
                k.m3_replay = Some(rc);
                remember_mic(&mut k.m3_mic, p.frame.mic());
            }
            link.stats.retransmissions += 1;
            return;
        }
        let kek = Zeroizing::new(k.ptk.kek().to_vec());
        let bss_rsne = self.bsses.get(&aa).and_then(|b| b.rsne.clone());
        let mut plain = Zeroizing::new(alloc::vec![0u8; p.frame.key_data().len()]);
        let Ok(data) = verified.key_data(&kek, &mut plain) else {
            self.reject(aa, spa, KeyMessage::M3, Reject::KeyDataUnwrap);
            return;
        };
        let wpa = p.frame.descriptor_type() == KeyDescriptor::Wpa;
        let mut key_id = None;
        if !wpa {
            // The RSNE must be the one of the beacon, bit for bit (12.7.6.4).
            let mut rsne = None;
            for item in KeyDataIter::new(data) {
                match item {
                    Ok(KeyDataItem::Element(e)) if e.id == ElementId::RSN.0 && rsne.is_none() => {
                        rsne = Some(e.data)
                    }
                    Ok(KeyDataItem::Kde(k)) if k.kde_type == KdeType::KEY_ID => {
                        key_id = k.data.first().map(|b| b & 3);
                    }
                    Ok(_) => {}
                    Err(_) => {
                        self.reject(aa, spa, KeyMessage::M3, Reject::KeyDataMalformed);
                        return;
                    }
                }
            }
            let pmkr1_name = link.ptks.get(i).and_then(|k| k.pmkr1_name);
            if let (Some(b), Some(m)) = (&bss_rsne, rsne) {
                let same = if akm.is_ft() {
                    ft_rsne_matches(b, m, pmkr1_name)
                } else {
                    b.as_slice() == m
                };
                if !same {
                    self.reject(aa, spa, KeyMessage::M3, Reject::RsneMismatch);
                    return;
                }
            }
            if self.group_keys_from(aa, spa, data).is_err() {
                self.reject(aa, spa, KeyMessage::M3, Reject::KeyDataMalformed);
                return;
            }
        }
        let link = self.links.or_default((aa, spa));
        link.stats.handshakes_complete += 1;
        let mut ev = None;
        if let Some(k) = link.ptks.get_mut(i) {
            k.confirmed = true;
            k.m3_replay = Some(rc);
            remember_mic(&mut k.m3_mic, p.frame.mic());
            // Extended Key ID: the Key ID KDE names the PTK's Key ID;
            // without it the PTK uses Key ID 0.
            let id = key_id.unwrap_or(0);
            k.key_id = Some(id);
            self.key_changes += 1;
            ev = Some(Event::PairwiseKeyId {
                handle: k.handle,
                key_id: id,
            });
        }
        if let Some(e) = ev {
            self.events.push_back(e);
        }
    }

    /// Installs the GTK and IGTK of decrypted RSN Key Data.
    fn group_keys_from(&mut self, aa: MacAddr, spa: MacAddr, data: &[u8]) -> Result<bool, ()> {
        let gtk = keywrap::find_gtk(data).map_err(|_| ())?;
        let igtk = keywrap::find_igtk(data).map_err(|_| ())?;
        let mut any = false;
        if let Some(g) = gtk {
            self.install_gtk(aa, spa, g.key_id, g.key);
            any = true;
        }
        if let Some(i) = igtk {
            self.install_igtk(aa, spa, i.key_id, i.key);
            any = true;
        }
        Ok(any)
    }

    fn group_suite(&self, aa: MacAddr, spa: MacAddr, len: usize) -> Option<Suite> {
        let c = self
            .links
            .get(&(aa, spa))
            .and_then(|l| l.group)
            .or_else(|| self.bsses.get(&aa).and_then(|b| b.group));
        match c.and_then(suite_of) {
            Some(s) if s.key_len() == len => Some(s),
            _ => match len {
                16 => Some(Suite::Ccmp128),
                5 => Some(Suite::Wep40),
                13 => Some(Suite::Wep104),
                _ => None,
            },
        }
    }

    fn install_gtk(&mut self, aa: MacAddr, spa: MacAddr, key_id: u8, key: &[u8]) {
        let Some(suite) = self.group_suite(aa, spa, key.len()) else {
            return;
        };
        let bss = self.bsses.or_default(aa);
        // The same GTK again is not installed again (12.7.7.2; KRACK).
        if bss
            .gtks
            .iter()
            .any(|g| g.key_id == key_id && g.bytes.as_slice() == key)
        {
            return;
        }
        let Ok(dk) = DataKey::new(suite, key) else {
            return;
        };
        self.next_handle = self.next_handle.wrapping_add(1);
        let handle = KeyHandle(self.next_handle);
        let bss = self.bsses.or_default(aa);
        bss.gtks.insert(
            0,
            GroupKey {
                handle,
                key_id,
                bytes: Zeroizing::new(key.to_vec()),
                key: dk,
            },
        );
        bss.gtks.truncate(MAX_GROUP_KEYS);
        self.key_changes += 1;
        self.events.push_back(Event::GroupKey {
            bssid: aa,
            handle,
            key_id,
            suite,
            key: Zeroizing::new(key.to_vec()),
        });
    }

    fn install_igtk(&mut self, aa: MacAddr, spa: MacAddr, key_id: u16, key: &[u8]) {
        let c = self
            .links
            .get(&(aa, spa))
            .and_then(|l| l.mgmt)
            .or_else(|| self.bsses.get(&aa).and_then(|b| b.mgmt));
        let suite = match c.and_then(suite_of) {
            Some(s) if s.is_bip() && s.key_len() == key.len() => s,
            _ if key.len() == 16 => Suite::BipCmac128,
            _ => Suite::BipGmac256,
        };
        let bss = self.bsses.or_default(aa);
        if bss
            .igtks
            .iter()
            .any(|g| g.key_id == key_id && g.bytes.as_slice() == key)
        {
            return;
        }
        let Ok(bk) = BipKey::new(suite, key) else {
            return;
        };
        self.next_handle = self.next_handle.wrapping_add(1);
        let handle = KeyHandle(self.next_handle);
        let bss = self.bsses.or_default(aa);
        bss.igtks.insert(
            0,
            IntegrityKey {
                handle,
                key_id,
                bytes: Zeroizing::new(key.to_vec()),
                key: bk,
            },
        );
        bss.igtks.truncate(MAX_GROUP_KEYS);
        self.key_changes += 1;
        self.events.push_back(Event::IntegrityGroupKey {
            bssid: aa,
            handle,
            key_id,
            suite,
            key: Zeroizing::new(key.to_vec()),
        });
    }

    fn on_m4(&mut self, aa: MacAddr, spa: MacAddr, p: &Parsed<'_>) {
        let rc = p.frame.replay_counter();
        let version = p.frame.key_info().descriptor_version().to_u8();
        let link = self.links.or_default((aa, spa));
        let (Some(akm), Some(pairwise)) = (link.akm, link.pairwise) else {
            self.reject(aa, spa, KeyMessage::M4, Reject::NoPtk);
            return;
        };
        let Some(alg) = Self::mic_alg(version, akm, pairwise, 32) else {
            self.reject(aa, spa, KeyMessage::M4, Reject::UnsupportedAkm);
            return;
        };
        if link.ptks.is_empty() {
            self.reject(aa, spa, KeyMessage::M4, Reject::NoPtk);
            return;
        }
        // Message 4 echoes message 3's counter; try that PTK first.
        let mut order: Vec<usize> = (0..link.ptks.len()).collect();
        order.sort_by_key(|&i| link.ptks.get(i).is_none_or(|k| k.m3_replay != Some(rc)));
        let ok = order.iter().any(|&i| {
            link.ptks
                .get(i)
                .is_some_and(|k| eapol_mic::verify_pdu(alg, k.ptk.kck(), p.frame.pdu()).is_ok())
        });
        if ok {
            link.stats.msg4 += 1;
        } else {
            self.reject(aa, spa, KeyMessage::M4, Reject::MicFailure);
        }
    }

    fn on_group1(&mut self, aa: MacAddr, spa: MacAddr, p: &Parsed<'_>) {
        let rc = p.frame.replay_counter();
        let ki = p.frame.key_info();
        let version = ki.descriptor_version().to_u8();
        let link = self.links.or_default((aa, spa));
        let (Some(akm), Some(pairwise)) = (link.akm, link.pairwise) else {
            self.reject(aa, spa, KeyMessage::Group1, Reject::NoPtk);
            return;
        };
        if link.ptks.is_empty() {
            self.reject(aa, spa, KeyMessage::Group1, Reject::NoPtk);
            return;
        }
        let Some(alg) = Self::mic_alg(version, akm, pairwise, 32) else {
            self.reject(aa, spa, KeyMessage::Group1, Reject::UnsupportedAkm);
            return;
        };
        // IEEE Std 802.11-2020, 12.7.7.2: protected by the current PTK's
        // KCK; try the newest first.
        let Ok(unverified) = UnverifiedKeyFrame::parse(p.frame.pdu(), p.frame.mic_len()) else {
            self.reject(aa, spa, KeyMessage::Group1, Reject::Malformed);
            return;
        };
        let Some((i, verified)) = link
            .ptks
            .iter()
            .enumerate()
            .find_map(|(i, k)| unverified.verify_mic(alg, k.ptk.kck()).ok().map(|v| (i, v)))
        else {
            self.reject(aa, spa, KeyMessage::Group1, Reject::MicFailure);
            return;
        };
        match Self::replay_check(link.last_ap_replay, rc) {
            Err(r) => {
                self.reject(aa, spa, KeyMessage::Group1, r);
                return;
            }
            Ok(false) => {
                if link.last_group_replay == Some(rc) {
                    link.stats.retransmissions += 1;
                } else {
                    self.reject(aa, spa, KeyMessage::Group1, Reject::Replayed);
                }
                return;
            }
            Ok(true) => {}
        }
        link.last_ap_replay = Some(rc);
        link.last_group_replay = Some(rc);
        let Some(k) = link.ptks.get(i) else {
            return;
        };
        let kek = Zeroizing::new(k.ptk.kek().to_vec());
        let mut plain = Zeroizing::new(alloc::vec![0u8; p.frame.key_data().len()]);
        let wpa = p.frame.descriptor_type() == KeyDescriptor::Wpa;
        let data = if wpa {
            // WPA has no Encrypted Key Data bit: the GTK is always
            // encrypted (RC4 for version 1, AES key wrap for version 2).
            let f = verified.frame();
            keywrap::decrypt_key_data(version, &kek, &f.key_iv(), f.key_data(), &mut plain)
                .ok()
                .and_then(|n| plain.get(..n))
        } else {
            verified.key_data(&kek, &mut plain).ok()
        };
        let Some(data) = data else {
            self.reject(aa, spa, KeyMessage::Group1, Reject::KeyDataUnwrap);
            return;
        };
        if wpa {
            // WPA: Key Data is the GTK itself, Key Index in Key Information.
            let len = usize::from(p.frame.key_length());
            let Some(gtk) = data.get(..len).filter(|g| !g.is_empty()) else {
                self.reject(aa, spa, KeyMessage::Group1, Reject::KeyDataMalformed);
                return;
            };
            self.install_gtk(aa, spa, ki.key_index(), gtk);
        } else {
            match self.group_keys_from(aa, spa, data) {
                Ok(true) => {}
                _ => {
                    self.reject(aa, spa, KeyMessage::Group1, Reject::KeyDataMalformed);
                    return;
                }
            }
        }
        self.links.or_default((aa, spa)).stats.group_rekeys += 1;
    }

    /// FT authentication response (13.5.1): remember the nonces and key
    /// holder IDs of the roam.
    fn ft_auth_response(&mut self, aa: MacAddr, spa: MacAddr, m: &MgmtFrame<&[u8]>) {
        let els = m.elements();
        let mic_len = self
            .link_akm(aa, spa)
            .and_then(|a| a.mic_len())
            .unwrap_or(16);
        if let Some(e) = els.clone().find_id(ElementId::MOBILITY_DOMAIN) {
            if let Some(md) = e.data.get(..2) {
                self.bsses.or_default(aa).mdid = Some([md[0], md[1]]);
            }
        }
        let rsn = els
            .clone()
            .rsne()
            .and_then(|r| r.ok())
            .map(|r| rsn_params(&r));
        let Some(f) = els
            .find_id(ElementId::FAST_BSS_TRANSITION)
            .and_then(|e| Fte::parse(e.data, mic_len))
        else {
            return;
        };
        // The roaming station's AKM and ciphers carry over from its
        // previous association; the RSNE here names them again.
        let prev = self
            .links
            .iter()
            .find(|((_, s), l)| *s == spa && l.akm.is_some())
            .map(|(_, l)| (l.akm, l.pairwise, l.group, l.mgmt));
        let prev_ssid = self
            .links
            .keys()
            .filter(|(_, s)| *s == spa)
            .find_map(|(a, _)| self.bsses.get(a).and_then(|b| b.ssid.clone()));
        let link = self.links.or_default((aa, spa));
        if let Some((a, p, g, mg)) = rsn {
            link.akm = a.or(link.akm);
            link.pairwise = p.or(link.pairwise);
            link.group = Some(g);
            link.mgmt = Some(mg);
        } else if let Some((a, p, g, mg)) = prev {
            link.akm = link.akm.or(a);
            link.pairwise = link.pairwise.or(p);
            link.group = link.group.or(g);
            link.mgmt = link.mgmt.or(mg);
        }
        if let Some(r0) = f.r0kh_id {
            link.ft.r0kh_id = Some(r0.to_vec());
        }
        link.ft.r1kh_id = f.r1kh_id.or(link.ft.r1kh_id);
        link.ft.nonces = Some((f.anonce, f.snonce));
        if let Some(s) = prev_ssid {
            self.bsses.or_default(aa).ssid.get_or_insert(s);
        }
    }

    /// FT reassociation (13.8.4, 13.8.5): derive the PTK of the roam and
    /// trust it once the FTE MIC of the reassociation request (`seq` 5)
    /// or response (`seq` 6) verifies.
    fn ft_reassoc(&mut self, aa: MacAddr, spa: MacAddr, mpdu: &[u8], seq: u8) {
        let Some(link) = self.links.get(&(aa, spa)) else {
            return;
        };
        let (Some((anonce, snonce)), Some(akm), Some(pairwise)) =
            (link.ft.nonces, link.akm, link.pairwise)
        else {
            return;
        };
        if !akm.is_ft() {
            return;
        }
        let Some(suite) = suite_of(pairwise) else {
            return;
        };
        let Ok(m) = MgmtFrame::new_checked(mpdu) else {
            return;
        };
        let mic_len = akm.mic_len().unwrap_or(16);
        let mut rsne = None;
        let mut mde = None;
        let mut fte = None;
        for e in m.elements().map_while(|e| e.ok()) {
            match ElementId(e.id) {
                ElementId::RSN => rsne = Some(e),
                ElementId::MOBILITY_DOMAIN => mde = Some(e),
                ElementId::FAST_BSS_TRANSITION => fte = Some(e),
                _ => {}
            }
        }
        let (Some(rsne), Some(mde), Some(fte)) = (rsne, mde, fte) else {
            return;
        };
        let Some(f) = Fte::parse(fte.data, mic_len) else {
            return;
        };
        let existing = link
            .ptks
            .iter()
            .position(|k| k.anonce == anonce && k.snonce == snonce);
        let idx = match existing {
            Some(i) => i,
            None => {
                let Ok(cands) = self.candidates(aa, spa, akm, pairwise, &anonce, &snonce) else {
                    return;
                };
                let Some(c) = cands.into_iter().find(|c| {
                    ft_mic_ok(akm, c.ptk.kck(), spa, aa, seq, &rsne, &mde, &fte, mic_len)
                }) else {
                    return;
                };
                let Ok(i) = self.install_ptk(aa, spa, akm, suite, anonce, snonce, c) else {
                    return;
                };
                if let Some(l) = self.links.get_mut(&(aa, spa)) {
                    l.stats.ft_roams += 1;
                    if let Some(k) = l.ptks.get_mut(i) {
                        k.confirmed = true;
                        k.key_id = Some(0);
                    }
                    self.key_changes += 1;
                }
                i
            }
        };
        if seq != 6 {
            return;
        }
        // The reassociation response carries the GTK and IGTK wrapped
        // with the KEK in FTE subelements (13.8.5, Figure 9-466).
        let Some(k) = self.links.get(&(aa, spa)).and_then(|l| l.ptks.get(idx)) else {
            return;
        };
        if !ft_mic_ok(akm, k.ptk.kck(), spa, aa, seq, &rsne, &mde, &fte, mic_len) {
            return;
        }
        let kek = Zeroizing::new(k.ptk.kek().to_vec());
        if let Some(g) = f.gtk {
            // Key Info (2), Key Length (1), RSC (8), Wrapped Key.
            let key_id = g.first().map(|b| b & 3).unwrap_or(0);
            let len = usize::from(g.get(2).copied().unwrap_or(0));
            let wrapped = g.get(11..).unwrap_or(&[]);
            let mut out = Zeroizing::new(alloc::vec![0u8; wrapped.len()]);
            if let Ok(n) = keywrap::aes_unwrap(&kek, wrapped, &mut out) {
                if let Some(key) = out.get(..n.min(len)).filter(|k| k.len() == len) {
                    let key = Zeroizing::new(key.to_vec());
                    self.install_gtk(aa, spa, key_id, &key);
                }
            }
        }
        if let Some(i) = f.igtk {
            // Key ID (2), IPN (6), Key Length (1), Wrapped Key.
            let key_id = u16::from_le_bytes([
                i.first().copied().unwrap_or(0),
                i.get(1).copied().unwrap_or(0),
            ]);
            let len = usize::from(i.get(8).copied().unwrap_or(0));
            let wrapped = i.get(9..).unwrap_or(&[]);
            let mut out = Zeroizing::new(alloc::vec![0u8; wrapped.len()]);
            if let Ok(n) = keywrap::aes_unwrap(&kek, wrapped, &mut out) {
                if let Some(key) = out.get(..n.min(len)).filter(|k| k.len() == len) {
                    let key = Zeroizing::new(key.to_vec());
                    self.install_igtk(aa, spa, key_id, &key);
                }
            }
        }
    }
}

/// Message 3's RSNE against the beacon's for an FT AKM (IEEE Std
/// 802.11-2020, 12.7.6.4): in an FT initial mobility domain association
/// message 3's RSNE carries the PMKR1Name in its PMKID list (13.4.2), so
/// the two are compared without their PMKID lists, and the PMKID list
/// must be exactly the PMKR1Name derived for this PTK.
fn ft_rsne_matches(beacon: &[u8], m3: &[u8], pmkr1_name: Option<[u8; 16]>) -> bool {
    let (Ok(b), Ok(m)) = (Rsne::parse(beacon), Rsne::parse(m3)) else {
        return false;
    };
    let names_it = match (m.pmkids, pmkr1_name) {
        (Some(list), Some(name)) => list.len() == 1 && list.get(0).is_some_and(|p| p.0 == name),
        _ => false,
    };
    // Every field but the PMKID list; absent trailing fields count as
    // their defaults.
    names_it
        && b.group_data_cipher_or_default() == m.group_data_cipher_or_default()
        && b.pairwise_or_default() == m.pairwise_or_default()
        && b.akms_or_default() == m.akms_or_default()
        && b.capabilities_or_default() == m.capabilities_or_default()
        && b.group_mgmt_cipher == m.group_mgmt_cipher
}

fn remember_mic(slot: &mut [u8; 32], mic: &[u8]) {
    slot.fill(0);
    if let Some(d) = slot.get_mut(..mic.len()) {
        d.copy_from_slice(mic);
    }
}

/// Checks the MIC of an FTE (IEEE Std 802.11-2020, 13.8.4): AES-128-CMAC
/// (HMAC-SHA-384 for the SHA-384 AKMs) with the KCK over STA address, AP
/// address, transaction sequence number, RSNE, MDE and the FTE with its
/// MIC field zeroed.
#[allow(clippy::too_many_arguments)]
fn ft_mic_ok(
    akm: Akm,
    kck: &[u8],
    sta: MacAddr,
    ap: MacAddr,
    seq: u8,
    rsne: &wisec_wire::Element<'_>,
    mde: &wisec_wire::Element<'_>,
    fte: &wisec_wire::Element<'_>,
    mic_len: usize,
) -> bool {
    let alg = if mic_len == 24 {
        MicAlgorithm::HmacSha384_192
    } else {
        MicAlgorithm::AesCmac128
    };
    if !akm.is_ft() || alg.mic_len() != mic_len {
        return false;
    }
    let mut buf =
        Vec::with_capacity(13 + 3 * 2 + rsne.data.len() + mde.data.len() + fte.data.len());
    buf.extend_from_slice(&sta.0);
    buf.extend_from_slice(&ap.0);
    buf.push(seq);
    for e in [rsne, mde] {
        buf.push(e.id);
        buf.extend_from_slice(&[e.data.len() as u8]);
        buf.extend_from_slice(e.data);
    }
    buf.push(fte.id);
    buf.push(fte.data.len() as u8);
    let start = buf.len();
    buf.extend_from_slice(fte.data);
    let Some(mic) = fte.data.get(2..2 + mic_len) else {
        return false;
    };
    if let Some(field) = buf.get_mut(start + 2..start + 2 + mic_len) {
        field.fill(0);
    } else {
        return false;
    }
    eapol_mic::verify(alg, kck, &buf, mic).is_ok()
}

/// False for a data frame that cannot carry EAPOL: the octets an LLC/SNAP
/// header's EtherType takes (6 and 7 into the body) are not 0x888E. Most
/// data frames are not EAPOL, and two octets tell them at a glance, before
/// the frame is parsed in full ([`DataFrame::ethertype`]).
fn may_carry_eapol<T: AsRef<[u8]>>(f: &DataFrame<T>) -> bool {
    f.body().get(6..8) == Some(&EtherType::EAPOL.0.to_be_bytes()[..])
}

#[cfg(test)]
mod tests;
