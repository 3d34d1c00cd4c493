//! The 4-way handshake (IEEE Std 802.11-2020, 12.7.6) as two sans-I/O
//! state machines, [`Authenticator`] and [`Supplicant`], which also run
//! the group key handshake (12.7.7) over the PTKSA they establish.
//!
//! Both take EAPOL PDUs (from the EAPOL header on) through `handle_rx`,
//! hand out the PDU to send through `poll_transmit`, report what happened
//! through `poll_event`, and take the time as an argument; the
//! authenticator retransmits on `handle_timeout` at `poll_timeout`.
//!
//! The KRACK lessons are rules here: a frame is trusted only after its
//! MIC verified ([`UnverifiedKeyFrame::verify_mic`]); the Key Replay
//! Counter advances only then; a PTK or group key already installed is
//! never installed again (a retransmitted message 3 is answered, but the
//! key and its packet number stay as they are).

use crate::group_key;
use crate::rsn::{
    ElementBuf, GroupKeys, HandshakeError, Instant, KeyDataInfo, KeyFrameSpec, MessageKind,
    Negotiated, Random, UnverifiedKeyFrame,
};
use wisec_crypto::eapol_mic::MicAlgorithm;
use wisec_crypto::ptk::{Pmk, Ptk};
use wisec_wire::eapol::{KeyDescriptorVersion, KeyInfo};
use wisec_wire::mgmt::ReasonCode;
use wisec_wire::MacAddr;
use zeroize::Zeroize;

/// Longest EAPOL PDU the machines send.
pub const TX_MAX: usize = 640;

/// Default retransmission timeout of messages 1 and 3 and of group
/// message 1 (hostapd's dot11RSNAConfigPairwiseUpdateTimeOut).
pub const DEFAULT_TIMEOUT_MS: u64 = 1000;
/// Default number of transmissions of each of those messages
/// (dot11RSNAConfigPairwiseUpdateCount, dot11RSNAConfigGroupUpdateCount).
pub const DEFAULT_MAX_TRIES: u8 = 4;

/// What the two ends of one association agreed on before the handshake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Association {
    /// The negotiated suites.
    pub negotiated: Negotiated,
    /// The authenticator address (the AP's BSSID).
    pub aa: MacAddr,
    /// The supplicant address.
    pub spa: MacAddr,
    /// The RSNE (or WPA element) of the AP's Beacon and Probe Response:
    /// sent in message 3 and compared there by the supplicant.
    pub ap_rsne: ElementBuf,
    /// The RSNE of the STA's (Re)Association Request: sent in message 2
    /// and compared there by the authenticator.
    pub sta_rsne: ElementBuf,
}

/// Retransmission policy of the authenticator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// Time to wait for an answer before retransmitting, in ms.
    pub timeout_ms: u64,
    /// Transmissions of a message before giving up.
    pub max_tries: u8,
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            timeout_ms: DEFAULT_TIMEOUT_MS,
            max_tries: DEFAULT_MAX_TRIES,
        }
    }
}

/// What a machine reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A new PTK is installed: read it with `ptk()`; its transmit packet
    /// number starts again from 1.
    PtkInstalled,
    /// A new GTK is installed (supplicant): read it with `group_keys()`.
    GtkInstalled {
        /// Its Key ID.
        key_id: u16,
    },
    /// A new IGTK is installed (supplicant).
    IgtkInstalled {
        /// Its Key ID.
        key_id: u16,
    },
    /// The 4-way handshake completed.
    FourWayComplete,
    /// A group key handshake completed.
    GroupKeyComplete,
    /// The handshake failed: deauthenticate the peer with this reason.
    Deauthenticate(ReasonCode),
}

#[derive(Debug, Clone, Copy)]
struct Events {
    q: [Option<Event>; 8],
    head: usize,
    len: usize,
}

impl Events {
    const fn new() -> Events {
        Events {
            q: [None; 8],
            head: 0,
            len: 0,
        }
    }

    fn push(&mut self, e: Event) {
        if self.len < self.q.len() {
            let i = (self.head + self.len) % self.q.len();
            self.q[i] = Some(e);
            self.len += 1;
        }
    }

    fn pop(&mut self) -> Option<Event> {
        if self.len == 0 {
            return None;
        }
        let e = self.q[self.head].take();
        self.head = (self.head + 1) % self.q.len();
        self.len -= 1;
        e
    }
}

struct TxBuf {
    buf: [u8; TX_MAX],
    len: usize,
    pending: bool,
}

impl TxBuf {
    const fn new() -> TxBuf {
        TxBuf {
            buf: [0; TX_MAX],
            len: 0,
            pending: false,
        }
    }

    fn set(&mut self, len: usize) {
        self.len = len;
        self.pending = true;
    }

    fn take(&mut self) -> Option<&[u8]> {
        if !self.pending {
            return None;
        }
        self.pending = false;
        self.buf.get(..self.len)
    }
}

/// The key state both ends keep once a PTK is installed.
struct Installed {
    ptk: Ptk,
    anonce: [u8; 32],
    tx_pn: u64,
}

/// Installs `ptk` unless it is the PTK already in use, which keeps its
/// packet number (a retransmitted message 3 or 4 must not reset it:
/// KRACK); true when it was installed.
fn install_ptk(installed: &mut Option<Installed>, ptk: Ptk, anonce: [u8; 32]) -> bool {
    let same = installed
        .as_ref()
        .is_some_and(|i| crate::rsn::ct_eq(i.ptk.as_bytes(), ptk.as_bytes()));
    if !same {
        *installed = Some(Installed {
            ptk,
            anonce,
            tx_pn: 0,
        });
    }
    !same
}

/// The next packet number under the installed PTK (1, 2, ...), or `None`
/// without one.
fn next_pn(installed: &mut Option<Installed>) -> Option<u64> {
    let i = installed.as_mut()?;
    i.tx_pn += 1;
    Some(i.tx_pn)
}

/// Parses an EAPOL-Key PDU and checks that its descriptor type and
/// version are the negotiated ones.
fn parse_eapol_key<'a>(
    assoc: &Association,
    alg: MicAlgorithm,
    pdu: &'a [u8],
) -> Result<UnverifiedKeyFrame<'a>, HandshakeError> {
    let frame = UnverifiedKeyFrame::parse(pdu, alg.mic_len())?;
    let ki = frame.frame().key_info();
    if frame.frame().descriptor_type() != assoc.negotiated.descriptor
        || ki.descriptor_version() != assoc.negotiated.descriptor_version()
    {
        return Err(HandshakeError::UnexpectedMessage);
    }
    Ok(frame)
}

fn pairwise_info(v: KeyDescriptorVersion) -> KeyInfo {
    KeyInfo::default()
        .with_descriptor_version(v)
        .with_pairwise(true)
}

fn derive(
    assoc: &Association,
    pmk: &Pmk,
    anonce: &[u8; 32],
    snonce: &[u8; 32],
) -> Result<Ptk, HandshakeError> {
    let h = assoc.negotiated.hierarchy(pmk.len())?;
    Ptk::derive_with(
        h,
        assoc.negotiated.pairwise,
        pmk.as_bytes(),
        assoc.aa,
        assoc.spa,
        anonce,
        snonce,
    )
    .map_err(|_| HandshakeError::Unsupported)
}

// ---------------------------------------------------------------------------
// Authenticator
// ---------------------------------------------------------------------------

/// The authenticator's states (12.7.6; the 4-way handshake state machine
/// of hostapd names them PTKSTART, PTKINITNEGOTIATING, PTKINITDONE).
enum AuthState {
    /// Not started.
    Idle,
    /// Message 1 sent; waiting for message 2.
    PtkStart {
        anonce: [u8; 32],
        first_counter: u64,
        tries: u8,
        deadline: Instant,
    },
    /// Message 3 sent; waiting for message 4.
    PtkNegotiating {
        anonce: [u8; 32],
        tptk: Ptk,
        key_iv: [u8; 16],
        tries: u8,
        deadline: Instant,
    },
    /// The PTK is installed; no handshake running.
    Done,
    /// Group message 1 sent; waiting for group message 2.
    GroupRekey {
        keys: GroupKeys,
        key_iv: [u8; 16],
        tries: u8,
        deadline: Instant,
    },
    /// The handshake failed with this error.
    Failed(HandshakeError),
}

/// The public name of the authenticator's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthenticatorState {
    /// Not started.
    Idle,
    /// Waiting for message 2.
    AwaitingMessage2,
    /// Waiting for message 4.
    AwaitingMessage4,
    /// PTK installed.
    Established,
    /// Waiting for group message 2.
    AwaitingGroupMessage2,
    /// Failed.
    Failed(HandshakeError),
}

/// The authenticator of one association (the AP side).
pub struct Authenticator {
    assoc: Association,
    pmk: Pmk,
    alg: MicAlgorithm,
    timing: Timing,
    group: GroupKeys,
    replay_counter: u64,
    state: AuthState,
    installed: Option<Installed>,
    tx: TxBuf,
    events: Events,
}

impl Authenticator {
    /// An authenticator for `assoc` with `pmk` (the PSK, or the PMK of SAE,
    /// OWE or 802.1X) handing out `group` keys.
    pub fn new(
        assoc: Association,
        pmk: Pmk,
        group: GroupKeys,
        timing: Timing,
    ) -> Result<Authenticator, HandshakeError> {
        let alg = assoc.negotiated.mic_algorithm(pmk.len())?;
        assoc.negotiated.pairwise_key_len()?;
        Ok(Authenticator {
            assoc,
            pmk,
            alg,
            timing,
            group,
            replay_counter: 0,
            state: AuthState::Idle,
            installed: None,
            tx: TxBuf::new(),
            events: Events::new(),
        })
    }

    /// The state.
    pub fn state(&self) -> AuthenticatorState {
        match &self.state {
            AuthState::Idle => AuthenticatorState::Idle,
            AuthState::PtkStart { .. } => AuthenticatorState::AwaitingMessage2,
            AuthState::PtkNegotiating { .. } => AuthenticatorState::AwaitingMessage4,
            AuthState::Done => AuthenticatorState::Established,
            AuthState::GroupRekey { .. } => AuthenticatorState::AwaitingGroupMessage2,
            AuthState::Failed(e) => AuthenticatorState::Failed(*e),
        }
    }

    /// The installed PTK.
    pub fn ptk(&self) -> Option<&Ptk> {
        self.installed.as_ref().map(|i| &i.ptk)
    }

    /// The group keys in force (after a group rekey completes, the new
    /// ones).
    pub fn group_keys(&self) -> &GroupKeys {
        &self.group
    }

    /// The last Key Replay Counter used.
    pub fn replay_counter(&self) -> u64 {
        self.replay_counter
    }

    /// The next packet number to protect a frame with under the installed
    /// PTK (1, 2, ...), or `None` without one.
    pub fn next_pn(&mut self) -> Option<u64> {
        next_pn(&mut self.installed)
    }

    /// The PDU to send, once.
    pub fn poll_transmit(&mut self) -> Option<&[u8]> {
        self.tx.take()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop()
    }

    /// When `handle_timeout` wants to be called.
    pub fn poll_timeout(&self) -> Option<Instant> {
        match &self.state {
            AuthState::PtkStart { deadline, .. }
            | AuthState::PtkNegotiating { deadline, .. }
            | AuthState::GroupRekey { deadline, .. } => Some(*deadline),
            _ => None,
        }
    }

    fn fail(&mut self, e: HandshakeError) -> HandshakeError {
        self.state = AuthState::Failed(e);
        self.events.push(Event::Deauthenticate(e.reason_code()));
        e
    }

    /// Starts (or, with a PTK installed, restarts for a PTK rekey) the
    /// 4-way handshake: a fresh ANonce, message 1.
    pub fn start(&mut self, now: Instant, rng: &mut dyn Random) -> Result<(), HandshakeError> {
        if let AuthState::Failed(_) = self.state {
            return Err(HandshakeError::Failed);
        }
        // A group rekey in progress already handed its keys to the
        // supplicant (group message 1, which it may have installed): they
        // are the current keys from now on, and message 3 of the new
        // handshake carries them. Going back to the previous GTK would
        // make the supplicant install a retired key again under the same
        // Key ID, its replay counter reset (12.7.7.3).
        if let AuthState::GroupRekey { keys, .. } = &self.state {
            self.group = keys.clone();
        }
        let mut anonce = [0u8; 32];
        rng.fill_bytes(&mut anonce);
        self.replay_counter += 1;
        let first = self.replay_counter;
        self.send_message_1(&anonce)?;
        self.state = AuthState::PtkStart {
            anonce,
            first_counter: first,
            tries: 1,
            deadline: now.plus_millis(self.timing.timeout_ms),
        };
        Ok(())
    }

    // IEEE Std 802.11-2020, 12.7.6.2: message 1.
    fn send_message_1(&mut self, anonce: &[u8; 32]) -> Result<(), HandshakeError> {
        let n = &self.assoc.negotiated;
        let ki = pairwise_info(n.descriptor_version()).with_key_ack(true);
        let len = KeyFrameSpec {
            descriptor: n.descriptor,
            key_info: ki,
            key_length: n.pairwise_key_len()?,
            replay_counter: self.replay_counter,
            key_nonce: *anonce,
            key_iv: [0; 16],
            key_rsc: 0,
            key_data: &[],
        }
        .emit(self.alg, &[], &mut self.tx.buf)?;
        self.tx.set(len);
        Ok(())
    }

    // IEEE Std 802.11-2020, 12.7.6.4: message 3.
    fn send_message_3(
        &mut self,
        anonce: &[u8; 32],
        tptk: &Ptk,
        key_iv: [u8; 16],
    ) -> Result<(), HandshakeError> {
        let n = self.assoc.negotiated;
        let version = n.descriptor_version();
        let mut plain = [0u8; group_key::KEY_DATA_MAX];
        let rsne = self.assoc.ap_rsne.as_bytes();
        plain
            .get_mut(..rsne.len())
            .ok_or(HandshakeError::InvalidKeyData)?
            .copy_from_slice(rsne);
        let mut len = rsne.len();
        len += group_key::emit_group_kdes(&self.group, &mut plain[len..])?;
        let iv = if version == KeyDescriptorVersion::HmacMd5Rc4 {
            key_iv
        } else {
            [0; 16]
        };
        let mut sealed = [0u8; group_key::KEY_DATA_MAX + 8];
        let m = crate::rsn::seal_key_data(version, tptk.kek(), &iv, &mut plain, len, &mut sealed)?;
        let ki = pairwise_info(version)
            .with_install(true)
            .with_key_ack(true)
            .with_key_mic(true)
            .with_secure(true)
            .with_encrypted_key_data(true);
        let out = KeyFrameSpec {
            descriptor: n.descriptor,
            key_info: ki,
            key_length: n.pairwise_key_len()?,
            replay_counter: self.replay_counter,
            key_nonce: *anonce,
            key_iv: iv,
            key_rsc: self.group.gtk.pn,
            key_data: sealed.get(..m).unwrap_or(&[]),
        }
        .emit(self.alg, tptk.kck(), &mut self.tx.buf);
        sealed.zeroize();
        let len = out?;
        self.tx.set(len);
        Ok(())
    }

    /// Retransmits or gives up when the deadline passed (12.7.6.2: each
    /// retransmission carries an incremented Key Replay Counter).
    pub fn handle_timeout(&mut self, now: Instant) -> Result<(), HandshakeError> {
        let Some(deadline) = self.poll_timeout() else {
            return Ok(());
        };
        if now < deadline {
            return Ok(());
        }
        let next = now.plus_millis(self.timing.timeout_ms);
        match core::mem::replace(&mut self.state, AuthState::Failed(HandshakeError::Failed)) {
            AuthState::PtkStart {
                anonce,
                first_counter,
                tries,
                ..
            } => {
                self.next_try(tries, HandshakeError::FourWayTimeout)?;
                self.send_message_1(&anonce)?;
                self.state = AuthState::PtkStart {
                    anonce,
                    first_counter,
                    tries: tries + 1,
                    deadline: next,
                };
            }
            AuthState::PtkNegotiating {
                anonce,
                tptk,
                key_iv,
                tries,
                ..
            } => {
                self.next_try(tries, HandshakeError::FourWayTimeout)?;
                self.send_message_3(&anonce, &tptk, key_iv)?;
                self.state = AuthState::PtkNegotiating {
                    anonce,
                    tptk,
                    key_iv,
                    tries: tries + 1,
                    deadline: next,
                };
            }
            AuthState::GroupRekey {
                keys,
                key_iv,
                tries,
                ..
            } => {
                self.next_try(tries, HandshakeError::GroupKeyTimeout)?;
                self.send_group_message_1(&keys, key_iv)?;
                self.state = AuthState::GroupRekey {
                    keys,
                    key_iv,
                    tries: tries + 1,
                    deadline: next,
                };
            }
            other => self.state = other,
        }
        Ok(())
    }

    /// Before a retransmission: fails with `timeout` once `tries`
    /// transmissions were made, else advances the Key Replay Counter.
    fn next_try(&mut self, tries: u8, timeout: HandshakeError) -> Result<(), HandshakeError> {
        if tries >= self.timing.max_tries {
            return Err(self.fail(timeout));
        }
        self.replay_counter += 1;
        Ok(())
    }

    /// Starts a group key handshake handing out `keys` (12.7.7.2). Needs
    /// an installed PTK and no handshake running.
    pub fn start_group_rekey(
        &mut self,
        now: Instant,
        keys: GroupKeys,
        rng: &mut dyn Random,
    ) -> Result<(), HandshakeError> {
        if !matches!(self.state, AuthState::Done) {
            return Err(HandshakeError::UnexpectedMessage);
        }
        let mut key_iv = [0u8; 16];
        rng.fill_bytes(&mut key_iv);
        self.replay_counter += 1;
        self.send_group_message_1(&keys, key_iv)?;
        self.state = AuthState::GroupRekey {
            keys,
            key_iv,
            tries: 1,
            deadline: now.plus_millis(self.timing.timeout_ms),
        };
        Ok(())
    }

    fn send_group_message_1(
        &mut self,
        keys: &GroupKeys,
        key_iv: [u8; 16],
    ) -> Result<(), HandshakeError> {
        let ptk = &self
            .installed
            .as_ref()
            .ok_or(HandshakeError::UnexpectedMessage)?
            .ptk;
        let len = group_key::build_message_1(
            &self.assoc.negotiated,
            self.alg,
            ptk,
            self.replay_counter,
            key_iv,
            keys,
            &mut self.tx.buf,
        )?;
        self.tx.set(len);
        Ok(())
    }

    /// Processes a received EAPOL PDU. An error says why the frame was
    /// dropped; the state changes only for a frame whose MIC verified
    /// (or to `Failed` after a mismatched RSNE in a verified message 2).
    pub fn handle_rx(
        &mut self,
        now: Instant,
        pdu: &[u8],
        rng: &mut dyn Random,
    ) -> Result<(), HandshakeError> {
        if let AuthState::Failed(_) = self.state {
            return Err(HandshakeError::Failed);
        }
        let frame = parse_eapol_key(&self.assoc, self.alg, pdu)?;
        match (frame.kind(), &self.state) {
            (MessageKind::FourWay2, AuthState::PtkStart { .. }) => {
                self.on_message_2(now, frame, rng)
            }
            (MessageKind::FourWay4, AuthState::PtkNegotiating { .. }) => self.on_message_4(frame),
            (MessageKind::Group2, AuthState::GroupRekey { .. }) => self.on_group_message_2(frame),
            (MessageKind::FourWay2 | MessageKind::FourWay4 | MessageKind::Group2, _) => {
                Err(HandshakeError::Replayed)
            }
            _ => Err(HandshakeError::UnexpectedMessage),
        }
    }

    // IEEE Std 802.11-2020, 12.7.6.3: message 2.
    fn on_message_2(
        &mut self,
        now: Instant,
        frame: UnverifiedKeyFrame<'_>,
        rng: &mut dyn Random,
    ) -> Result<(), HandshakeError> {
        let AuthState::PtkStart {
            anonce,
            first_counter,
            ..
        } = &self.state
        else {
            return Err(HandshakeError::UnexpectedMessage);
        };
        let anonce = *anonce;
        // The counter of any message 1 of this handshake (a slow
        // supplicant may answer a message 1 already retransmitted).
        let rc = frame.frame().replay_counter();
        if rc < *first_counter || rc > self.replay_counter {
            return Err(HandshakeError::Replayed);
        }
        let snonce = frame.frame().key_nonce();
        let tptk = derive(&self.assoc, &self.pmk, &anonce, &snonce)?;
        let verified = frame.verify_mic(self.alg, tptk.kck())?;
        let mut kd = [0u8; 512];
        let data = verified.key_data(&[], &mut kd)?;
        let info = KeyDataInfo::parse(data)?;
        let rsne = info.rsne.or(info.wpa);
        if !rsne.is_some_and(|e| self.assoc.sta_rsne.matches(e)) {
            return Err(self.fail(HandshakeError::RsneMismatch));
        }
        let mut key_iv = [0u8; 16];
        rng.fill_bytes(&mut key_iv);
        self.replay_counter += 1;
        self.send_message_3(&anonce, &tptk, key_iv)?;
        self.state = AuthState::PtkNegotiating {
            anonce,
            tptk,
            key_iv,
            tries: 1,
            deadline: now.plus_millis(self.timing.timeout_ms),
        };
        Ok(())
    }

    // IEEE Std 802.11-2020, 12.7.6.5: message 4.
    fn on_message_4(&mut self, frame: UnverifiedKeyFrame<'_>) -> Result<(), HandshakeError> {
        let AuthState::PtkNegotiating { tptk, .. } = &self.state else {
            return Err(HandshakeError::UnexpectedMessage);
        };
        if frame.frame().replay_counter() != self.replay_counter {
            return Err(HandshakeError::Replayed);
        }
        frame.verify_mic(self.alg, tptk.kck())?;
        let AuthState::PtkNegotiating { anonce, tptk, .. } =
            core::mem::replace(&mut self.state, AuthState::Done)
        else {
            return Err(HandshakeError::UnexpectedMessage);
        };
        if install_ptk(&mut self.installed, tptk, anonce) {
            self.events.push(Event::PtkInstalled);
        }
        self.events.push(Event::FourWayComplete);
        Ok(())
    }

    // IEEE Std 802.11-2020, 12.7.7.3: group message 2.
    fn on_group_message_2(&mut self, frame: UnverifiedKeyFrame<'_>) -> Result<(), HandshakeError> {
        let ptk = &self
            .installed
            .as_ref()
            .ok_or(HandshakeError::UnexpectedMessage)?
            .ptk;
        if frame.frame().replay_counter() != self.replay_counter {
            return Err(HandshakeError::Replayed);
        }
        frame.verify_mic(self.alg, ptk.kck())?;
        if let AuthState::GroupRekey { keys, .. } =
            core::mem::replace(&mut self.state, AuthState::Done)
        {
            self.group = keys;
        }
        self.events.push(Event::GroupKeyComplete);
        Ok(())
    }

    /// The ANonce of the installed PTK.
    pub fn anonce(&self) -> Option<[u8; 32]> {
        self.installed.as_ref().map(|i| i.anonce)
    }
}

/// Decrypts and checks the Key Data of a verified message 3: `Ok(None)`
/// when its RSNE is not the AP's (12.7.6.4), the group keys otherwise.
fn check_message_3(
    assoc: &Association,
    verified: &crate::rsn::VerifiedKeyFrame<'_>,
    kek: &[u8],
    kd: &mut [u8],
) -> Result<Option<GroupKeys>, HandshakeError> {
    let data = verified.key_data(kek, kd)?;
    let info = KeyDataInfo::parse(data)?;
    let rsne = info.rsne.or(info.wpa);
    if !rsne.is_some_and(|e| assoc.ap_rsne.matches(e)) {
        return Ok(None);
    }
    group_key::extract_group_keys(&assoc.negotiated, verified, &info).map(Some)
}

// ---------------------------------------------------------------------------
// Supplicant
// ---------------------------------------------------------------------------

enum SuppState {
    /// Waiting for message 1.
    Idle,
    /// Message 2 sent; waiting for message 3.
    AwaitingM3 {
        anonce: [u8; 32],
        snonce: [u8; 32],
        tptk: Ptk,
    },
    /// The PTK is installed.
    Done,
    /// Failed.
    Failed(HandshakeError),
}

/// The public name of the supplicant's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SupplicantState {
    /// Waiting for message 1.
    Idle,
    /// Waiting for message 3.
    AwaitingMessage3,
    /// PTK installed.
    Established,
    /// Failed.
    Failed(HandshakeError),
}

/// The supplicant of one association (the STA side).
pub struct Supplicant {
    assoc: Association,
    pmk: Pmk,
    alg: MicAlgorithm,
    /// The highest Key Replay Counter of a frame whose MIC verified.
    replay: Option<u64>,
    state: SuppState,
    installed: Option<Installed>,
    group: Option<GroupKeys>,
    /// The last key installed under each GTK Key ID (0 to 3) and IGTK
    /// Key ID (4, 5): the key table a receiver holds. A key that is still
    /// in its slot is never installed again, also after another Key ID
    /// was in use in between (12.7.7.3).
    gtk_slots: [Option<crate::rsn::GroupKey>; 4],
    igtk_slots: [Option<crate::rsn::GroupKey>; 2],
    ptk_installs: u32,
    tx: TxBuf,
    events: Events,
}

impl Supplicant {
    /// A supplicant for `assoc` with `pmk`.
    pub fn new(assoc: Association, pmk: Pmk) -> Result<Supplicant, HandshakeError> {
        let alg = assoc.negotiated.mic_algorithm(pmk.len())?;
        assoc.negotiated.pairwise_key_len()?;
        Ok(Supplicant {
            assoc,
            pmk,
            alg,
            replay: None,
            state: SuppState::Idle,
            installed: None,
            group: None,
            gtk_slots: Default::default(),
            igtk_slots: Default::default(),
            ptk_installs: 0,
            tx: TxBuf::new(),
            events: Events::new(),
        })
    }

    /// The state.
    pub fn state(&self) -> SupplicantState {
        match &self.state {
            SuppState::Idle => SupplicantState::Idle,
            SuppState::AwaitingM3 { .. } => SupplicantState::AwaitingMessage3,
            SuppState::Done => SupplicantState::Established,
            SuppState::Failed(e) => SupplicantState::Failed(*e),
        }
    }

    /// The installed PTK.
    pub fn ptk(&self) -> Option<&Ptk> {
        self.installed.as_ref().map(|i| &i.ptk)
    }

    /// The installed group keys.
    pub fn group_keys(&self) -> Option<&GroupKeys> {
        self.group.as_ref()
    }

    /// How many times a PTK was installed.
    pub fn ptk_installs(&self) -> u32 {
        self.ptk_installs
    }

    /// The highest verified Key Replay Counter.
    pub fn replay_counter(&self) -> Option<u64> {
        self.replay
    }

    /// The next packet number under the installed PTK.
    pub fn next_pn(&mut self) -> Option<u64> {
        next_pn(&mut self.installed)
    }

    /// The PDU to send, once.
    pub fn poll_transmit(&mut self) -> Option<&[u8]> {
        self.tx.take()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop()
    }

    /// The supplicant keeps no timers (the authenticator retransmits).
    pub fn poll_timeout(&self) -> Option<Instant> {
        None
    }

    fn fail(&mut self, e: HandshakeError) -> HandshakeError {
        self.state = SuppState::Failed(e);
        self.events.push(Event::Deauthenticate(e.reason_code()));
        e
    }

    fn fresh(&self, rc: u64) -> bool {
        self.replay.is_none_or(|last| rc > last)
    }

    /// Processes a received EAPOL PDU. An error says why the frame was
    /// dropped.
    pub fn handle_rx(
        &mut self,
        _now: Instant,
        pdu: &[u8],
        rng: &mut dyn Random,
    ) -> Result<(), HandshakeError> {
        if let SuppState::Failed(_) = self.state {
            return Err(HandshakeError::Failed);
        }
        let frame = parse_eapol_key(&self.assoc, self.alg, pdu)?;
        // IEEE Std 802.11-2020, 12.7.2 b.7: a counter not larger than
        // every verified one is a replay (checked before any work).
        if !self.fresh(frame.frame().replay_counter()) {
            return Err(HandshakeError::Replayed);
        }
        match frame.kind() {
            MessageKind::FourWay1 => self.on_message_1(frame, rng),
            MessageKind::FourWay3 => self.on_message_3(frame),
            MessageKind::Group1 => self.on_group_message_1(frame),
            _ => Err(HandshakeError::UnexpectedMessage),
        }
    }

    // IEEE Std 802.11-2020, 12.7.6.2 and 12.7.6.3: message 1, answered by
    // message 2.
    fn on_message_1(
        &mut self,
        frame: UnverifiedKeyFrame<'_>,
        rng: &mut dyn Random,
    ) -> Result<(), HandshakeError> {
        let anonce = frame.frame().key_nonce();
        let rc = frame.frame().replay_counter();
        // A retransmitted message 1 (same ANonce) gets the same SNonce; a
        // new ANonce restarts with a new SNonce and TPTK.
        let state = core::mem::replace(&mut self.state, SuppState::Idle);
        let (snonce, tptk) = match state {
            SuppState::AwaitingM3 {
                anonce: a,
                snonce,
                tptk,
            } if a == anonce => (snonce, tptk),
            other => {
                self.state = other;
                let mut snonce = [0u8; 32];
                rng.fill_bytes(&mut snonce);
                let tptk = derive(&self.assoc, &self.pmk, &anonce, &snonce)?;
                (snonce, tptk)
            }
        };
        let n = &self.assoc.negotiated;
        let ki = pairwise_info(n.descriptor_version()).with_key_mic(true);
        let len = KeyFrameSpec {
            descriptor: n.descriptor,
            key_info: ki,
            key_length: 0,
            replay_counter: rc,
            key_nonce: snonce,
            key_iv: [0; 16],
            key_rsc: 0,
            key_data: self.assoc.sta_rsne.as_bytes(),
        }
        .emit(self.alg, tptk.kck(), &mut self.tx.buf)?;
        self.tx.set(len);
        self.state = SuppState::AwaitingM3 {
            anonce,
            snonce,
            tptk,
        };
        Ok(())
    }

    // IEEE Std 802.11-2020, 12.7.6.4: message 3, answered by message 4.
    fn on_message_3(&mut self, frame: UnverifiedKeyFrame<'_>) -> Result<(), HandshakeError> {
        let anonce = frame.frame().key_nonce();
        // The key that checks the MIC: the TPTK of this handshake, or for
        // a retransmitted message 3 the PTK already installed from it.
        let kck_ptk = match &self.state {
            SuppState::AwaitingM3 {
                anonce: a, tptk, ..
            } => {
                if *a != anonce {
                    return Err(HandshakeError::UnexpectedMessage);
                }
                tptk
            }
            SuppState::Done => match &self.installed {
                Some(i) if i.anonce == anonce => &i.ptk,
                _ => return Err(HandshakeError::UnexpectedMessage),
            },
            _ => return Err(HandshakeError::UnexpectedMessage),
        };
        let verified = frame.verify_mic(self.alg, kck_ptk.kck())?;
        // Trusted from here: the counter advances (12.7.6.4).
        let rc = verified.frame().replay_counter();
        self.replay = Some(rc);
        let mut kd = [0u8; 512];
        let r = check_message_3(&self.assoc, &verified, kck_ptk.kek(), &mut kd);
        kd.zeroize();
        let group = match r {
            Ok(Some(g)) => g,
            Ok(None) => return Err(self.fail(HandshakeError::RsneMismatch)),
            Err(e) => return Err(e),
        };
        // Message 4, signed with the same KCK.
        let n = &self.assoc.negotiated;
        let ki = pairwise_info(n.descriptor_version())
            .with_key_mic(true)
            .with_secure(true);
        let len = KeyFrameSpec {
            descriptor: n.descriptor,
            key_info: ki,
            key_length: 0,
            replay_counter: rc,
            key_nonce: [0; 32],
            key_iv: [0; 16],
            key_rsc: 0,
            key_data: &[],
        }
        .emit(self.alg, kck_ptk.kck(), &mut self.tx.buf)?;
        self.tx.set(len);
        // Install the PTK unless it is the one in use (KRACK: a
        // retransmitted message 3 must not reset the key's packet number).
        if let SuppState::AwaitingM3 { anonce, tptk, .. } =
            core::mem::replace(&mut self.state, SuppState::Done)
        {
            if install_ptk(&mut self.installed, tptk, anonce) {
                self.ptk_installs += 1;
                self.events.push(Event::PtkInstalled);
            }
            self.install_group(group);
            self.events.push(Event::FourWayComplete);
        } else {
            self.install_group(group);
        }
        Ok(())
    }

    /// Installs group keys that differ from the installed ones (12.7.7.3:
    /// a GTK or IGTK already in use is not installed again, so its replay
    /// counter is not reset).
    fn install_group(&mut self, new: GroupKeys) {
        let old = self.group.take();
        let in_slot =
            |slots: &[Option<crate::rsn::GroupKey>], k: &crate::rsn::GroupKey, base: u16| {
                slots
                    .get(usize::from(k.key_id.wrapping_sub(base)))
                    .and_then(Option::as_ref)
                    .is_some_and(|s| s.same_key(k))
            };
        let gtk_same = old.as_ref().is_some_and(|o| o.gtk.same_key(&new.gtk))
            || in_slot(&self.gtk_slots, &new.gtk, 0);
        let igtk_same = match (old.as_ref().and_then(|o| o.igtk.as_ref()), &new.igtk) {
            (Some(a), Some(b)) => a.same_key(b) || in_slot(&self.igtk_slots, b, 4),
            (_, None) => true,
            (None, Some(b)) => in_slot(&self.igtk_slots, b, 4),
        };
        if let Some(slot) = self.gtk_slots.get_mut(usize::from(new.gtk.key_id)) {
            if !gtk_same {
                *slot = Some(new.gtk.clone());
            }
        }
        if let Some(i) = &new.igtk {
            if let Some(slot) = self
                .igtk_slots
                .get_mut(usize::from(i.key_id.wrapping_sub(4)))
            {
                if !igtk_same {
                    *slot = Some(i.clone());
                }
            }
        }
        let gtk = if gtk_same {
            old.as_ref()
                .map(|o| o.gtk.clone())
                .unwrap_or(new.gtk.clone())
        } else {
            self.events.push(Event::GtkInstalled {
                key_id: new.gtk.key_id,
            });
            new.gtk.clone()
        };
        let igtk = if igtk_same {
            old.as_ref()
                .and_then(|o| o.igtk.clone())
                .or(new.igtk.clone())
        } else {
            if let Some(i) = &new.igtk {
                self.events.push(Event::IgtkInstalled { key_id: i.key_id });
            }
            new.igtk.clone()
        };
        self.group = Some(GroupKeys { gtk, igtk });
    }

    // IEEE Std 802.11-2020, 12.7.7.2 and 12.7.7.3: group message 1,
    // answered by group message 2.
    fn on_group_message_1(&mut self, frame: UnverifiedKeyFrame<'_>) -> Result<(), HandshakeError> {
        if !matches!(self.state, SuppState::Done) {
            return Err(HandshakeError::UnexpectedMessage);
        }
        let ptk = &self
            .installed
            .as_ref()
            .ok_or(HandshakeError::UnexpectedMessage)?
            .ptk;
        let verified = frame.verify_mic(self.alg, ptk.kck())?;
        let rc = verified.frame().replay_counter();
        self.replay = Some(rc);
        let mut kd = [0u8; 512];
        let group = (|| {
            let data = verified.key_data(ptk.kek(), &mut kd)?;
            let info = KeyDataInfo::parse(data)?;
            group_key::extract_group_keys(&self.assoc.negotiated, &verified, &info)
        })();
        kd.zeroize();
        let group = group?;
        let len = group_key::build_message_2(
            &self.assoc.negotiated,
            self.alg,
            ptk,
            rc,
            &mut self.tx.buf,
        )?;
        self.tx.set(len);
        self.install_group(group);
        self.events.push(Event::GroupKeyComplete);
        Ok(())
    }
}
