//! Synthetic capture of a whole protected session (`wisec synth`):
//! beacons with the RSNE, authentication, association, the 4-way
//! handshake run by [`wisec_proto::fourway`]'s authenticator and
//! supplicant against each other, protected data both ways, group data, a
//! group key handshake, and with PMF protected deauthentication and BIP on
//! a group-addressed robust frame. Deterministic for a given seed.
//!
//! [`generate`] hands every frame to a callback (one reused buffer, no
//! per-frame allocation) with its plaintext when it is protected, so tests
//! can compare a decryption with what was sent; [`write_capture`] writes a
//! pcap or pcapng file.
//!
//! Authentication frames of SAE are well-formed (group 19 commit and
//! confirm) but their scalar, element and confirm are random: the PMK of
//! SAE and OWE is given, not computed, so only the 4-way handshake and the
//! data are real for those AKMs (the OWE Diffie-Hellman Parameter element
//! likewise carries a random public key).

use crate::capture::{
    CaptureWriter, Format, Interface, Packet, LINKTYPE_IEEE802_11, LINKTYPE_RADIOTAP,
};
use anyhow::{anyhow, bail, Context};
use serde::Serialize;
use std::io;
use std::path::Path;
use wisec_crypto::kdf;
use wisec_crypto::ptk::Pmk;
use wisec_crypto::suite::{BipKey, DataKey, Suite};
use wisec_crypto::FrameProtector;
use wisec_proto::fourway::{Association, Authenticator, Supplicant, Timing};
use wisec_proto::rsn::{ElementBuf, GroupKey, GroupKeys, Instant, Negotiated, Random};
use wisec_wire::element::{Akm, CipherSuite, List, RsnCapabilities, Rsne};
use wisec_wire::radiotap::{Channel, RadiotapFlags, RadiotapRepr};
use wisec_wire::MacAddr;

pub mod ft;

/// The AKM of a synthetic session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SynthAkm {
    /// PSK (00-0F-AC:2), PMK from the passphrase.
    Psk,
    /// PSK with SHA-256 (00-0F-AC:6), PMK from the passphrase.
    PskSha256,
    /// SAE (00-0F-AC:8) with a given PMK.
    Sae,
    /// OWE (00-0F-AC:18) with a given PMK.
    Owe,
    /// FT using PSK (00-0F-AC:4), PMK-R0 from the passphrase; two APs
    /// and a roam (see [`ft`]).
    FtPsk,
    /// FT over 802.1X (00-0F-AC:3), PMK-R0 from a given MSK; two APs and
    /// a roam.
    Ft8021x,
}

impl SynthAkm {
    /// The AKM suite selector.
    pub fn akm(self) -> Akm {
        match self {
            SynthAkm::Psk => Akm::PSK,
            SynthAkm::PskSha256 => Akm::PSK_SHA256,
            SynthAkm::Sae => Akm::SAE,
            SynthAkm::Owe => Akm::OWE,
            SynthAkm::FtPsk => Akm::FT_PSK,
            SynthAkm::Ft8021x => Akm::FT_IEEE8021X,
        }
    }

    /// True when the PMK is derived from the passphrase.
    pub fn uses_passphrase(self) -> bool {
        matches!(self, SynthAkm::Psk | SynthAkm::PskSha256 | SynthAkm::FtPsk)
    }

    /// True for the fast BSS transition AKMs.
    pub fn is_ft(self) -> bool {
        matches!(self, SynthAkm::FtPsk | SynthAkm::Ft8021x)
    }
}

/// The pairwise (and group) cipher of a synthetic session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SynthCipher {
    /// CCMP-128.
    Ccmp128,
    /// CCMP-256.
    Ccmp256,
    /// GCMP-128.
    Gcmp128,
    /// GCMP-256.
    Gcmp256,
    /// TKIP (insecure; for legacy decryption tests).
    Tkip,
}

impl SynthCipher {
    /// The cipher suite selector.
    pub fn suite(self) -> CipherSuite {
        match self {
            SynthCipher::Ccmp128 => CipherSuite::CCMP_128,
            SynthCipher::Ccmp256 => CipherSuite::CCMP_256,
            SynthCipher::Gcmp128 => CipherSuite::GCMP_128,
            SynthCipher::Gcmp256 => CipherSuite::GCMP_256,
            SynthCipher::Tkip => CipherSuite::TKIP,
        }
    }

    /// The data suite.
    pub fn data_suite(self) -> Suite {
        match self {
            SynthCipher::Ccmp128 => Suite::Ccmp128,
            SynthCipher::Ccmp256 => Suite::Ccmp256,
            SynthCipher::Gcmp128 => Suite::Gcmp128,
            SynthCipher::Gcmp256 => Suite::Gcmp256,
            SynthCipher::Tkip => Suite::Tkip,
        }
    }
}

/// What to synthesise.
#[derive(Debug, Clone)]
pub struct SynthConfig {
    /// AKM.
    pub akm: SynthAkm,
    /// Cipher (pairwise and group).
    pub cipher: SynthCipher,
    /// Passphrase (PSK AKMs).
    pub passphrase: String,
    /// SSID.
    pub ssid: Vec<u8>,
    /// The PMK for SAE and OWE (32 or 48 octets), wiped on drop.
    pub pmk: Option<zeroize::Zeroizing<Vec<u8>>>,
    /// The MSK for FT over 802.1X (at least 64 octets), wiped on drop.
    pub msk: Option<zeroize::Zeroizing<Vec<u8>>>,
    /// Number of stations.
    pub stations: usize,
    /// Unicast data frames per station (alternately down- and uplink).
    pub frames: usize,
    /// Management frame protection (always on for SAE and OWE).
    pub pmf: bool,
    /// Run a group key handshake halfway through the data.
    pub group_rekey: bool,
    /// Seed of every nonce, key and random field.
    pub seed: u64,
    /// Prefix frames with a radiotap header (link type 127; 105 otherwise).
    pub radiotap: bool,
    /// Halfway through the data, deauthenticate every station; it
    /// authenticates and reassociates, and a new 4-way handshake (its key
    /// replay counter started anew) gives a new PTK.
    pub reassociate: bool,
    /// Send some data frames twice: a MAC retransmission (Retry bit) of
    /// every 5th, and an exact copy (a capture duplicate) of every 7th.
    pub retries: bool,
    /// Stations are WDS peers: their data and EAPOL frames carry four
    /// addresses (To DS and From DS set).
    pub wds: bool,
}

impl SynthConfig {
    /// A small CCMP-128 PSK session.
    pub fn new(passphrase: &str, ssid: &str) -> SynthConfig {
        SynthConfig {
            akm: SynthAkm::Psk,
            cipher: SynthCipher::Ccmp128,
            passphrase: passphrase.to_string(),
            ssid: ssid.as_bytes().to_vec(),
            pmk: None,
            msk: None,
            stations: 1,
            frames: 8,
            pmf: false,
            group_rekey: false,
            seed: 1,
            radiotap: false,
            reassociate: false,
            retries: false,
            wds: false,
        }
    }

    /// True when PMF is used: asked for, or required by the AKM (WPA3
    /// SAE and OWE).
    pub fn pmf_effective(&self) -> bool {
        self.pmf || matches!(self.akm, SynthAkm::Sae | SynthAkm::Owe)
    }
}

/// What kind of frame a synthetic frame is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FrameKind {
    /// Beacon.
    Beacon,
    /// Authentication.
    Authentication,
    /// (Re)Association Request or Response.
    Association,
    /// EAPOL-Key frame sent in the clear (4-way handshake).
    Eapol,
    /// EAPOL-Key frame protected under the PTK (group key handshake).
    ProtectedEapol,
    /// Unicast data protected under the PTK.
    Data,
    /// Group-addressed data protected under the GTK.
    GroupData,
    /// Unicast robust management frame protected under the PTK (PMF).
    ProtectedMgmt,
    /// Group-addressed robust management frame with a BIP MME.
    BipMgmt,
}

/// One frame of the session.
#[derive(Debug, Clone, Copy)]
pub struct SynthFrame<'a> {
    /// Microseconds since the Unix epoch.
    pub timestamp_us: u64,
    /// The packet as written (radiotap header included when asked).
    pub packet: &'a [u8],
    /// The MPDU without radiotap header.
    pub mpdu: &'a [u8],
    /// The plaintext MPDU of a protected frame (the MPDU of a BIP frame
    /// without its MME).
    pub plaintext: Option<&'a [u8]>,
    /// What it is.
    pub kind: FrameKind,
    /// Index of the station the frame belongs to (`None` for beacons and
    /// group frames).
    pub station: Option<usize>,
}

/// Counts of what a session holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SynthSummary {
    /// Every frame.
    pub frames: u64,
    /// Beacons.
    pub beacons: u64,
    /// Authentication and association frames.
    pub handshake_mgmt: u64,
    /// EAPOL-Key frames in the clear.
    pub eapol: u64,
    /// EAPOL-Key frames protected under the PTK.
    pub protected_eapol: u64,
    /// Protected unicast data frames.
    pub data: u64,
    /// Protected group-addressed data frames.
    pub group_data: u64,
    /// Protected unicast management frames.
    pub protected_mgmt: u64,
    /// BIP-protected group-addressed management frames.
    pub bip_mgmt: u64,
    /// Frames with the Protected Frame bit set.
    pub protected: u64,
    /// Stations whose 4-way handshake completed.
    pub stations: u64,
    /// Completed group key handshakes.
    pub group_rekeys: u64,
    /// Reassociations (each with a new 4-way handshake).
    pub reassociations: u64,
    /// Data frames sent again as MAC retransmissions (Retry bit).
    pub retransmissions: u64,
    /// Data frames written twice, as a capture that holds a frame twice.
    pub duplicates: u64,
    /// FT roams (FT authentication and reassociation to the second AP).
    pub ft_roams: u64,
}

/// A seeded generator (SplitMix64) for reproducible captures. Not a
/// source of real keys.
#[derive(Debug, Clone)]
pub struct SeededRandom(u64);

impl SeededRandom {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> SeededRandom {
        SeededRandom(seed ^ 0x5753_4543_5359_4e54)
    }

    fn next_u64(&mut self) -> u64 {
        wisec_lab::rng::splitmix64(&mut self.0)
    }
}

impl Random for SeededRandom {
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for chunk in dest.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

/// The BSSID of synthetic sessions.
pub const BSSID: MacAddr = MacAddr([0x02, 0x57, 0x53, 0x00, 0x00, 0x01]);
/// The wired host behind the AP that stations talk to.
pub const SERVER: MacAddr = MacAddr([0x02, 0x57, 0x53, 0x00, 0x00, 0xfe]);
/// UDP port of every synthetic datagram.
pub const UDP_PORT: u16 = 5001;
/// Channel of the BSS (2437 MHz).
pub const CHANNEL: u8 = 6;

/// The address of station `i`.
pub fn station_addr(i: usize) -> MacAddr {
    let i = i as u32;
    MacAddr([
        0x02,
        0x57,
        0x53,
        (i >> 16) as u8,
        (i >> 8) as u8,
        0x10 + i as u8,
    ])
}

/// The UDP payload of a synthetic datagram: recognisable text naming the
/// station, direction and index.
pub fn payload_text(station: usize, uplink: bool, n: usize) -> String {
    let dir = if uplink { "up" } else { "down" };
    format!("wisec synth sta {station:05} {dir} {n:07} ")
}

const START_US: u64 = 1_700_000_000_000_000;
const FRAME_GAP_US: u64 = 250;
const BEACON_INTERVAL_US: u64 = 102_400;
const BUF_LEN: usize = 4096;

fn ip_checksum(h: &[u8]) -> u16 {
    let mut sum: u32 = h
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Appends an IPv4/UDP datagram carrying `text` (padded to `len` octets
/// of payload) behind an RFC 1042 LLC/SNAP header.
fn push_ipv4_udp(out: &mut Vec<u8>, src: [u8; 4], dst: [u8; 4], ident: u16, text: &str) {
    out.extend_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00]);
    let payload = text.as_bytes();
    let udp_len = 8 + payload.len();
    let total = 20 + udp_len;
    let start = out.len();
    out.extend_from_slice(&[0x45, 0]);
    out.extend_from_slice(&(total as u16).to_be_bytes());
    out.extend_from_slice(&ident.to_be_bytes());
    out.extend_from_slice(&[0x40, 0, 64, 17, 0, 0]);
    out.extend_from_slice(&src);
    out.extend_from_slice(&dst);
    let ck = ip_checksum(&out[start..start + 20]);
    out[start + 10..start + 12].copy_from_slice(&ck.to_be_bytes());
    out.extend_from_slice(&40000u16.to_be_bytes());
    out.extend_from_slice(&UDP_PORT.to_be_bytes());
    out.extend_from_slice(&(udp_len as u16).to_be_bytes());
    // RFC 768: a zero checksum means none was computed (IPv4 only).
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(payload);
}

fn sta_ip(i: usize) -> [u8; 4] {
    [10, (i >> 16) as u8 | 0x40, (i >> 8) as u8, (i & 0xff) as u8]
}

const SERVER_IP: [u8; 4] = [10, 0, 0, 1];

/// The per-station state of a session.
struct Station {
    addr: MacAddr,
    auth: Authenticator,
    supp: Supplicant,
    ptk: DataKey,
    seq: u16,
    /// Data frames sent (for `retries`).
    sent: u64,
}

/// The generator: buffers reused across frames.
struct Gen<'f> {
    cfg: SynthConfig,
    sink: &'f mut dyn FnMut(&SynthFrame<'_>) -> io::Result<()>,
    rng: SeededRandom,
    now_us: u64,
    next_beacon_us: u64,
    ap_seq: u16,
    radiotap: Vec<u8>,
    /// The MPDU being built (room for the security overhead).
    buf: Box<[u8; BUF_LEN]>,
    /// The plaintext of the frame being protected.
    plain: Vec<u8>,
    /// The packet (radiotap + MPDU).
    packet: Vec<u8>,
    scratch: Vec<u8>,
    beacon_body: Vec<u8>,
    summary: SynthSummary,
    /// Length of the last protected MPDU (for retransmissions).
    last_len: usize,
}

fn rsne_bytes(neg: &Negotiated, pmf: bool) -> anyhow::Result<Vec<u8>> {
    let pairwise = [neg.pairwise];
    let akms = [neg.akm];
    let caps = RsnCapabilities(0).with_mfpc(pmf).with_mfpr(pmf);
    let r = Rsne {
        group_data_cipher: Some(neg.group),
        pairwise: Some(List::Items(&pairwise)),
        akms: Some(List::Items(&akms)),
        capabilities: Some(caps),
        pmkids: neg.group_mgmt.map(|_| List::Items(&[])),
        group_mgmt_cipher: neg.group_mgmt,
        ..Rsne::default()
    };
    let mut b = vec![0u8; r.buffer_len()];
    r.emit(&mut b).map_err(|e| anyhow!("RSNE: {e}"))?;
    Ok(b)
}

impl<'f> Gen<'f> {
    fn new(
        cfg: &SynthConfig,
        sink: &'f mut dyn FnMut(&SynthFrame<'_>) -> io::Result<()>,
        rng: SeededRandom,
        radiotap: Vec<u8>,
        beacon_body: Vec<u8>,
    ) -> Gen<'f> {
        Gen {
            cfg: cfg.clone(),
            sink,
            rng,
            now_us: START_US,
            next_beacon_us: START_US,
            ap_seq: 0,
            radiotap,
            buf: Box::new([0u8; BUF_LEN]),
            plain: Vec::with_capacity(BUF_LEN),
            packet: Vec::with_capacity(BUF_LEN + 64),
            scratch: Vec::with_capacity(1024),
            beacon_body,
            summary: SynthSummary::default(),
            last_len: 0,
        }
    }

    fn seq(counter: &mut u16) -> u16 {
        let s = *counter;
        *counter = (*counter + 1) & 0x0fff;
        s
    }

    /// Writes a MAC header: Frame Control, Duration, three addresses and
    /// Sequence Control (IEEE Std 802.11-2020, 9.3.1, 9.3.2.1, 9.3.3.2).
    fn header(
        out: &mut Vec<u8>,
        fc: [u8; 2],
        dur: u16,
        a1: MacAddr,
        a2: MacAddr,
        a3: MacAddr,
        seq: u16,
    ) {
        out.clear();
        out.extend_from_slice(&fc);
        out.extend_from_slice(&dur.to_le_bytes());
        out.extend_from_slice(&a1.0);
        out.extend_from_slice(&a2.0);
        out.extend_from_slice(&a3.0);
        out.extend_from_slice(&(seq << 4).to_le_bytes());
    }

    /// Writes a 4-address MAC header (WDS; 9.3.2.1, Table 9-30: both DS
    /// bits set): Frame Control, Duration, Address 1 to 3, Sequence
    /// Control, Address 4.
    fn header4(out: &mut Vec<u8>, fc: [u8; 2], dur: u16, a: [MacAddr; 4], seq: u16) {
        out.clear();
        out.extend_from_slice(&fc);
        out.extend_from_slice(&dur.to_le_bytes());
        out.extend_from_slice(&a[0].0);
        out.extend_from_slice(&a[1].0);
        out.extend_from_slice(&a[2].0);
        out.extend_from_slice(&(seq << 4).to_le_bytes());
        out.extend_from_slice(&a[3].0);
    }

    /// Writes the frame just emitted again: as a MAC retransmission (the
    /// Retry bit set, nothing else changed) or as an exact copy.
    fn emit_again(
        &mut self,
        mpdu_len: usize,
        retry: bool,
        station: Option<usize>,
    ) -> anyhow::Result<()> {
        if retry {
            self.buf[1] |= 0x08;
            self.summary.retransmissions += 1;
        } else {
            self.summary.duplicates += 1;
        }
        self.emit(mpdu_len, true, FrameKind::Data, station)
    }

    /// Emits `mpdu` (with `plaintext` for protected frames).
    fn emit(
        &mut self,
        mpdu_len: usize,
        with_plain: bool,
        kind: FrameKind,
        station: Option<usize>,
    ) -> anyhow::Result<()> {
        self.packet.clear();
        self.packet.extend_from_slice(&self.radiotap);
        let rt = self.packet.len();
        self.packet.extend_from_slice(&self.buf[..mpdu_len]);
        let f = SynthFrame {
            timestamp_us: self.now_us,
            packet: &self.packet,
            mpdu: &self.packet[rt..],
            plaintext: if with_plain { Some(&self.plain) } else { None },
            kind,
            station,
        };
        (self.sink)(&f).context("cannot write the capture")?;
        let s = &mut self.summary;
        s.frames += 1;
        if self.buf[1] & 0x40 != 0 {
            s.protected += 1;
        }
        match kind {
            FrameKind::Beacon => s.beacons += 1,
            FrameKind::Authentication | FrameKind::Association => s.handshake_mgmt += 1,
            FrameKind::Eapol => s.eapol += 1,
            FrameKind::ProtectedEapol => s.protected_eapol += 1,
            FrameKind::Data => s.data += 1,
            FrameKind::GroupData => s.group_data += 1,
            FrameKind::ProtectedMgmt => s.protected_mgmt += 1,
            FrameKind::BipMgmt => s.bip_mgmt += 1,
        }
        self.now_us += FRAME_GAP_US;
        Ok(())
    }

    /// Emits the unprotected frame in `self.plain`.
    fn emit_plain(&mut self, kind: FrameKind, station: Option<usize>) -> anyhow::Result<()> {
        let n = self.plain.len();
        if n > BUF_LEN {
            bail!("frame too long");
        }
        self.buf[..n].copy_from_slice(&self.plain);
        self.emit(n, false, kind, station)
    }

    /// Protects the frame in `self.plain` with `key` and emits it.
    fn emit_protected(
        &mut self,
        key: &dyn FrameProtector,
        pn: u64,
        key_id: u8,
        kind: FrameKind,
        station: Option<usize>,
    ) -> anyhow::Result<()> {
        let n = self.plain.len();
        if n + key.overhead().total() > BUF_LEN {
            bail!("frame too long");
        }
        self.buf[..n].copy_from_slice(&self.plain);
        let len = key
            .protect_in_place(&mut self.buf[..], n, pn, key_id)
            .map_err(|e| anyhow!("cannot protect a frame: {e}"))?;
        self.last_len = len;
        self.emit(len, true, kind, station)
    }

    fn maybe_beacon(&mut self) -> anyhow::Result<()> {
        while self.now_us >= self.next_beacon_us {
            self.beacon()?;
        }
        Ok(())
    }

    /// A Beacon (9.3.3.2): Timestamp, Beacon Interval, Capability, SSID,
    /// Supported Rates, DSSS Parameter Set, TIM, RSNE, Extended Supported
    /// Rates.
    fn beacon(&mut self) -> anyhow::Result<()> {
        let seq = Gen::seq(&mut self.ap_seq);
        let mut p = std::mem::take(&mut self.plain);
        Gen::header(
            &mut p,
            [0x80, 0x00],
            0,
            MacAddr::BROADCAST,
            BSSID,
            BSSID,
            seq,
        );
        let tsf = self.next_beacon_us - START_US;
        p.extend_from_slice(&tsf.to_le_bytes());
        p.extend_from_slice(&self.beacon_body);
        self.plain = p;
        self.next_beacon_us += BEACON_INTERVAL_US;
        self.emit_plain(FrameKind::Beacon, None)
    }

    fn mgmt(
        &mut self,
        subtype: u8,
        to_ap: bool,
        sta: MacAddr,
        seq_sta: &mut u16,
        body: &[u8],
        station: usize,
    ) -> anyhow::Result<()> {
        let kind = if subtype == 11 {
            FrameKind::Authentication
        } else {
            FrameKind::Association
        };
        self.maybe_beacon()?;
        let mut p = std::mem::take(&mut self.plain);
        let fc = [subtype << 4, 0];
        if to_ap {
            let seq = Gen::seq(seq_sta);
            Gen::header(&mut p, fc, 314, BSSID, sta, BSSID, seq);
        } else {
            let seq = Gen::seq(&mut self.ap_seq);
            Gen::header(&mut p, fc, 314, sta, BSSID, BSSID, seq);
        }
        p.extend_from_slice(body);
        self.plain = p;
        self.emit_plain(kind, Some(station))
    }

    /// An EAPOL PDU in a Data frame behind LLC/SNAP (EtherType 0x888E),
    /// from the AP (From DS) or to it (To DS).
    fn eapol_frame(&mut self, pdu: &[u8], to_ap: bool, sta: MacAddr, seq: u16) {
        let mut p = std::mem::take(&mut self.plain);
        if self.cfg.wds {
            let (ra, ta) = if to_ap { (BSSID, sta) } else { (sta, BSSID) };
            Gen::header4(&mut p, [0x08, 0x03], 44, [ra, ta, ra, ta], seq);
        } else if to_ap {
            Gen::header(&mut p, [0x08, 0x01], 44, BSSID, sta, BSSID, seq);
        } else {
            Gen::header(&mut p, [0x08, 0x02], 44, sta, BSSID, BSSID, seq);
        }
        p.extend_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0, 0x88, 0x8e]);
        p.extend_from_slice(pdu);
        self.plain = p;
    }

    /// Runs the authenticator and supplicant of `st` against each other
    /// until neither has anything to send, writing every EAPOL frame
    /// (protected under the PTK when `protect`).
    fn exchange(&mut self, st: &mut Station, index: usize, protect: bool) -> anyhow::Result<()> {
        let now = Instant::from_micros(self.now_us);
        let mut pdu = std::mem::take(&mut self.scratch);
        for _ in 0..16 {
            let (to_ap, got) = if let Some(p) = st.auth.poll_transmit() {
                pdu.clear();
                pdu.extend_from_slice(p);
                (false, true)
            } else if let Some(p) = st.supp.poll_transmit() {
                pdu.clear();
                pdu.extend_from_slice(p);
                (true, true)
            } else {
                (false, false)
            };
            if !got {
                break;
            }
            self.maybe_beacon()?;
            let seq = if to_ap {
                Gen::seq(&mut st.seq)
            } else {
                Gen::seq(&mut self.ap_seq)
            };
            self.eapol_frame(&pdu, to_ap, st.addr, seq);
            if protect {
                let pn = if to_ap {
                    st.supp.next_pn()
                } else {
                    st.auth.next_pn()
                }
                .ok_or_else(|| anyhow!("no PTK to protect EAPOL with"))?;
                self.emit_protected(&st.ptk, pn, 0, FrameKind::ProtectedEapol, Some(index))?;
            } else {
                self.emit_plain(FrameKind::Eapol, Some(index))?;
            }
            let r = if to_ap {
                st.auth.handle_rx(now, &pdu, &mut self.rng)
            } else {
                st.supp.handle_rx(now, &pdu, &mut self.rng)
            };
            r.map_err(|e| anyhow!("station {index}: handshake: {e}"))?;
        }
        self.scratch = pdu;
        while st.auth.poll_event().is_some() {}
        while st.supp.poll_event().is_some() {}
        Ok(())
    }
}

fn pmk_of(cfg: &SynthConfig) -> anyhow::Result<Pmk> {
    if cfg.akm.uses_passphrase() {
        if cfg.pmk.is_some() {
            bail!("--pmk is for sae and owe; psk AKMs derive the PMK from --passphrase");
        }
        kdf::psk(cfg.passphrase.as_bytes(), &cfg.ssid).map_err(|e| anyhow!("--passphrase: {e}"))
    } else {
        let pmk = cfg
            .pmk
            .as_ref()
            .ok_or_else(|| anyhow!("--pmk is required for sae and owe"))?;
        let ok = match cfg.akm {
            SynthAkm::Sae => pmk.len() == 32,
            _ => matches!(pmk.len(), 32 | 48),
        };
        if !ok {
            bail!("--pmk: {} octets; SAE takes 32, OWE 32 or 48", pmk.len());
        }
        Pmk::new(pmk).map_err(|e| anyhow!("--pmk: {e}"))
    }
}

fn group_keys(
    rng: &mut SeededRandom,
    neg: &Negotiated,
    gtk_id: u16,
    igtk_id: u16,
) -> anyhow::Result<GroupKeys> {
    let mut k = [0u8; 32];
    let glen = neg.group.key_len().ok_or_else(|| anyhow!("group cipher"))?;
    rng.fill_bytes(&mut k);
    let gtk = GroupKey::new(&k[..glen], gtk_id, 0).map_err(|e| anyhow!("GTK: {e}"))?;
    let igtk = match neg.group_mgmt {
        Some(s) => {
            rng.fill_bytes(&mut k);
            let l = s
                .key_len()
                .ok_or_else(|| anyhow!("group management cipher"))?;
            Some(GroupKey::new(&k[..l], igtk_id, 0).map_err(|e| anyhow!("IGTK: {e}"))?)
        }
        None => None,
    };
    zeroize::Zeroize::zeroize(&mut k);
    Ok(GroupKeys { gtk, igtk })
}

/// Generates the session `cfg` describes, handing each frame to `sink`.
pub fn generate(
    cfg: &SynthConfig,
    sink: &mut dyn FnMut(&SynthFrame<'_>) -> io::Result<()>,
) -> anyhow::Result<SynthSummary> {
    if cfg.ssid.is_empty() || cfg.ssid.len() > 32 {
        bail!("--ssid: 1 to 32 octets");
    }
    if cfg.stations == 0 || cfg.stations > 0xffff {
        bail!("--stations: 1 to 65535");
    }
    let pmf = cfg.pmf_effective();
    if pmf && cfg.cipher == SynthCipher::Tkip {
        bail!("--pmf: management frame protection needs CCMP or GCMP, not TKIP");
    }
    if cfg.cipher == SynthCipher::Tkip && cfg.akm != SynthAkm::Psk {
        bail!("--cipher tkip: TKIP goes with --akm psk only (key descriptor version 1)");
    }
    if cfg.akm.is_ft() {
        let mut g = Gen::new(
            cfg,
            sink,
            SeededRandom::new(cfg.seed),
            radiotap_header(cfg)?,
            Vec::new(),
        );
        ft::run(&mut g)?;
        return Ok(g.summary);
    }
    let pmk = pmk_of(cfg)?;
    let group_mgmt = pmf.then(|| match cfg.cipher.data_suite().matching_bip() {
        Suite::BipCmac256 => CipherSuite::BIP_CMAC_256,
        Suite::BipGmac128 => CipherSuite::BIP_GMAC_128,
        Suite::BipGmac256 => CipherSuite::BIP_GMAC_256,
        _ => CipherSuite::BIP_CMAC_128,
    });
    let suite = cfg.cipher.suite();
    let neg = Negotiated::rsn(cfg.akm.akm(), suite, suite, group_mgmt);
    let rsne = rsne_bytes(&neg, pmf)?;
    let rsne_buf = ElementBuf::new(&rsne).map_err(|e| anyhow!("RSNE: {e}"))?;

    let mut rng = SeededRandom::new(cfg.seed);
    let mut keys = group_keys(&mut rng, &neg, 1, 4)?;

    // Beacon body after the Timestamp.
    let mut body = Vec::new();
    body.extend_from_slice(&100u16.to_le_bytes());
    body.extend_from_slice(&0x0411u16.to_le_bytes()); // ESS, Privacy, Short Slot Time
    body.push(0);
    body.push(cfg.ssid.len() as u8);
    body.extend_from_slice(&cfg.ssid);
    let rates = [0x01, 8, 0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24];
    body.extend_from_slice(&rates);
    body.extend_from_slice(&[0x03, 1, CHANNEL]);
    body.extend_from_slice(&[0x05, 4, 0, 1, 0, 0]);
    body.extend_from_slice(&rsne);
    let ext_rates = [50, 4, 0x30, 0x48, 0x60, 0x6c];
    body.extend_from_slice(&ext_rates);

    let radiotap = radiotap_header(cfg)?;

    let mut g = Gen::new(cfg, sink, rng, radiotap, body);
    g.beacon()?;

    // Authentication, association and the 4-way handshake of each station.
    let mut stations: Vec<Station> = Vec::with_capacity(cfg.stations);
    for i in 0..cfg.stations {
        let addr = station_addr(i);
        let mut seq_sta = (i as u16).wrapping_mul(97) & 0x0fff;
        authenticate(&mut g, addr, &mut seq_sta, i)?;
        associate(&mut g, addr, &mut seq_sta, i, &rsne)?;
        let assoc = Association {
            negotiated: neg,
            aa: BSSID,
            spa: addr,
            ap_rsne: rsne_buf,
            sta_rsne: rsne_buf,
        };
        let timing = Timing::default();
        let mut auth = Authenticator::new(assoc, pmk.clone(), keys.clone(), timing)
            .map_err(|e| anyhow!("authenticator: {e}"))?;
        let supp = Supplicant::new(assoc, pmk.clone()).map_err(|e| anyhow!("supplicant: {e}"))?;
        auth.start(Instant::from_micros(g.now_us), &mut g.rng)
            .map_err(|e| anyhow!("authenticator: {e}"))?;
        let mut st = Station {
            addr,
            auth,
            supp,
            // Replaced once the PTK exists.
            ptk: DataKey::new(Suite::Ccmp128, &[0; 16]).map_err(|e| anyhow!("{e}"))?,
            seq: seq_sta,
            sent: 0,
        };
        handshake(&mut g, &mut st, i)?;
        g.summary.stations += 1;
        stations.push(st);
    }

    // Data, with a group key handshake halfway when asked.
    let mut gtk_key =
        DataKey::new(cfg.cipher.data_suite(), keys.gtk.key()).map_err(|e| anyhow!("GTK: {e}"))?;
    let mut gtk_pn = keys.gtk.pn;
    let mut gtk_id = keys.gtk.key_id as u8;
    let mut group_n = 0usize;
    let rekey_at = cfg.frames / 2;
    for r in 0..cfg.frames {
        if cfg.reassociate && r == rekey_at && r > 0 {
            for (i, st) in stations.iter_mut().enumerate() {
                reassociate(&mut g, st, i, &rsne, &neg, &pmk, &rsne_buf, &keys)?;
            }
        }
        if cfg.group_rekey && r == rekey_at {
            let new = group_keys(
                &mut g.rng,
                &neg,
                if keys.gtk.key_id == 1 { 2 } else { 1 },
                5,
            )?;
            for (i, st) in stations.iter_mut().enumerate() {
                st.auth
                    .start_group_rekey(Instant::from_micros(g.now_us), new.clone(), &mut g.rng)
                    .map_err(|e| anyhow!("station {i}: group rekey: {e}"))?;
                g.exchange(st, i, true)?;
                let got = st.supp.group_keys().map(|k| k.gtk.key() == new.gtk.key());
                if got != Some(true) {
                    bail!("station {i}: the group key handshake did not complete");
                }
            }
            g.summary.group_rekeys += 1;
            keys = new;
            gtk_key = DataKey::new(cfg.cipher.data_suite(), keys.gtk.key())
                .map_err(|e| anyhow!("GTK: {e}"))?;
            gtk_pn = keys.gtk.pn;
            gtk_id = keys.gtk.key_id as u8;
        }
        let uplink = r % 2 == 1;
        for (i, st) in stations.iter_mut().enumerate() {
            g.maybe_beacon()?;
            data_frame(&mut g, st, i, uplink, r)?;
        }
        if r % 4 == 0 || (cfg.group_rekey && r == rekey_at) {
            g.maybe_beacon()?;
            gtk_pn += 1;
            group_frame(&mut g, &gtk_key, gtk_pn, gtk_id, group_n)?;
            group_n += 1;
        }
    }

    // With PMF: a BIP-protected group-addressed Deauthentication, then a
    // protected Deauthentication of every station (12.6.8).
    if let (true, Some(igtk)) = (pmf, keys.igtk.as_ref()) {
        let bip_suite = cfg.cipher.data_suite().matching_bip();
        let bip = BipKey::new(bip_suite, igtk.key()).map_err(|e| anyhow!("IGTK: {e}"))?;
        g.maybe_beacon()?;
        let seq = Gen::seq(&mut g.ap_seq);
        let mut p = std::mem::take(&mut g.plain);
        Gen::header(
            &mut p,
            [0xc0, 0x00],
            0,
            MacAddr::BROADCAST,
            BSSID,
            BSSID,
            seq,
        );
        p.extend_from_slice(&3u16.to_le_bytes()); // Deauthenticated because leaving
        let n = p.len();
        g.buf[..n].copy_from_slice(&p);
        g.plain = p;
        let len = bip
            .protect_in_place(&mut g.buf[..], n, igtk.pn + 1, igtk.key_id as u8)
            .map_err(|e| anyhow!("BIP: {e}"))?;
        g.emit(len, true, FrameKind::BipMgmt, None)?;
        for (i, st) in stations.iter_mut().enumerate() {
            g.maybe_beacon()?;
            let seq = Gen::seq(&mut g.ap_seq);
            let mut p = std::mem::take(&mut g.plain);
            Gen::header(&mut p, [0xc0, 0x00], 314, st.addr, BSSID, BSSID, seq);
            p.extend_from_slice(&3u16.to_le_bytes());
            g.plain = p;
            let pn = st.auth.next_pn().ok_or_else(|| anyhow!("no PTK"))?;
            g.emit_protected(&st.ptk, pn, 0, FrameKind::ProtectedMgmt, Some(i))?;
        }
    }
    Ok(g.summary)
}

/// Runs the 4-way handshake of a station just (re)associated and takes
/// its PTK.
fn handshake(g: &mut Gen<'_>, st: &mut Station, i: usize) -> anyhow::Result<()> {
    g.exchange(st, i, false)?;
    let (Some(a), Some(s)) = (st.auth.ptk(), st.supp.ptk()) else {
        bail!("station {i}: the 4-way handshake did not complete");
    };
    if a.as_bytes() != s.as_bytes() {
        bail!("station {i}: authenticator and supplicant derived different PTKs");
    }
    st.ptk = DataKey::new(g.cfg.cipher.data_suite(), s.tk()).map_err(|e| anyhow!("PTK: {e}"))?;
    Ok(())
}

/// Deauthentication by the AP (reason 2, previous authentication no
/// longer valid; protected under the PTK with PMF), authentication and
/// Reassociation Request/Response (9.3.3.8, 9.3.3.9), then a 4-way
/// handshake run by a new authenticator and supplicant: its key replay
/// counter starts anew (12.7.2).
#[allow(clippy::too_many_arguments)]
fn reassociate(
    g: &mut Gen<'_>,
    st: &mut Station,
    i: usize,
    rsne: &[u8],
    neg: &Negotiated,
    pmk: &Pmk,
    rsne_buf: &ElementBuf,
    keys: &GroupKeys,
) -> anyhow::Result<()> {
    g.maybe_beacon()?;
    let seq = Gen::seq(&mut g.ap_seq);
    let mut p = std::mem::take(&mut g.plain);
    Gen::header(&mut p, [0xc0, 0x00], 314, st.addr, BSSID, BSSID, seq);
    p.extend_from_slice(&2u16.to_le_bytes());
    g.plain = p;
    if g.cfg.pmf_effective() {
        let pn = st.auth.next_pn().ok_or_else(|| anyhow!("no PTK"))?;
        g.emit_protected(&st.ptk, pn, 0, FrameKind::ProtectedMgmt, Some(i))?;
    } else {
        g.emit_plain(FrameKind::Association, Some(i))?;
    }
    let mut seq_sta = st.seq;
    authenticate(g, st.addr, &mut seq_sta, i)?;
    let mut body = Vec::with_capacity(256);
    body.extend_from_slice(&0x0411u16.to_le_bytes());
    body.extend_from_slice(&10u16.to_le_bytes());
    body.extend_from_slice(&BSSID.0);
    body.push(0);
    body.push(g.cfg.ssid.len() as u8);
    let ssid = g.cfg.ssid.clone();
    body.extend_from_slice(&ssid);
    body.extend_from_slice(&[0x01, 8, 0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24]);
    body.extend_from_slice(rsne);
    g.mgmt(2, true, st.addr, &mut seq_sta, &body, i)?;
    body.clear();
    body.extend_from_slice(&0x0411u16.to_le_bytes());
    body.extend_from_slice(&0u16.to_le_bytes());
    body.extend_from_slice(&(((i + 1) as u16 & 0x07ff) | 0xc000).to_le_bytes());
    body.extend_from_slice(&[0x01, 8, 0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24]);
    g.mgmt(3, false, st.addr, &mut seq_sta, &body, i)?;
    st.seq = seq_sta;
    let assoc = Association {
        negotiated: *neg,
        aa: BSSID,
        spa: st.addr,
        ap_rsne: *rsne_buf,
        sta_rsne: *rsne_buf,
    };
    st.auth = Authenticator::new(assoc, pmk.clone(), keys.clone(), Timing::default())
        .map_err(|e| anyhow!("authenticator: {e}"))?;
    st.supp = Supplicant::new(assoc, pmk.clone()).map_err(|e| anyhow!("supplicant: {e}"))?;
    st.auth
        .start(Instant::from_micros(g.now_us), &mut g.rng)
        .map_err(|e| anyhow!("authenticator: {e}"))?;
    handshake(g, st, i)?;
    g.summary.reassociations += 1;
    Ok(())
}

/// The radiotap header every packet gets with `cfg.radiotap`.
fn radiotap_header(cfg: &SynthConfig) -> anyhow::Result<Vec<u8>> {
    if !cfg.radiotap {
        return Ok(Vec::new());
    }
    let r = RadiotapRepr {
        flags: Some(RadiotapFlags(0)),
        rate: Some(12),
        channel: Some(Channel {
            freq: 2437,
            flags: Channel::OFDM | Channel::GHZ2,
        }),
        dbm_antenna_signal: Some(-42),
        tx_flags: None,
    };
    let mut b = vec![0u8; r.buffer_len()];
    r.emit(&mut b).map_err(|e| anyhow!("radiotap: {e}"))?;
    Ok(b)
}

/// Open System (two frames) or SAE (commit and confirm both ways)
/// authentication (12.3.3.2, 12.4.7.4).
fn authenticate(g: &mut Gen<'_>, sta: MacAddr, seq_sta: &mut u16, i: usize) -> anyhow::Result<()> {
    let mut body = Vec::with_capacity(128);
    if g.cfg.akm == SynthAkm::Sae {
        for (to_ap, seq) in [(true, 1u16), (false, 1), (true, 2), (false, 2)] {
            body.clear();
            body.extend_from_slice(&3u16.to_le_bytes());
            body.extend_from_slice(&seq.to_le_bytes());
            body.extend_from_slice(&0u16.to_le_bytes());
            if seq == 1 {
                // Commit: group 19, scalar (32), element (64).
                body.extend_from_slice(&19u16.to_le_bytes());
                let mut r = [0u8; 96];
                g.rng.fill_bytes(&mut r);
                body.extend_from_slice(&r);
            } else {
                // Confirm: Send-Confirm, Confirm (32).
                body.extend_from_slice(&1u16.to_le_bytes());
                let mut r = [0u8; 32];
                g.rng.fill_bytes(&mut r);
                body.extend_from_slice(&r);
            }
            g.mgmt(11, to_ap, sta, seq_sta, &body, i)?;
        }
    } else {
        for (to_ap, seq) in [(true, 1u16), (false, 2)] {
            body.clear();
            body.extend_from_slice(&0u16.to_le_bytes());
            body.extend_from_slice(&seq.to_le_bytes());
            body.extend_from_slice(&0u16.to_le_bytes());
            g.mgmt(11, to_ap, sta, seq_sta, &body, i)?;
        }
    }
    Ok(())
}

/// Association Request with the STA's RSNE and Association Response
/// (9.3.3.6, 9.3.3.7); with OWE both carry a Diffie-Hellman Parameter
/// element (9.4.2.243).
fn associate(
    g: &mut Gen<'_>,
    sta: MacAddr,
    seq_sta: &mut u16,
    i: usize,
    rsne: &[u8],
) -> anyhow::Result<()> {
    let mut dh = Vec::new();
    if g.cfg.akm == SynthAkm::Owe {
        let mut k = [0u8; 32];
        g.rng.fill_bytes(&mut k);
        dh.extend_from_slice(&[255, 35, 32]);
        dh.extend_from_slice(&19u16.to_le_bytes());
        dh.extend_from_slice(&k);
    }
    let mut body = Vec::with_capacity(256);
    body.extend_from_slice(&0x0411u16.to_le_bytes());
    body.extend_from_slice(&10u16.to_le_bytes());
    body.push(0);
    body.push(g.cfg.ssid.len() as u8);
    body.extend_from_slice(&g.cfg.ssid);
    body.extend_from_slice(&[0x01, 8, 0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24]);
    body.extend_from_slice(&[50, 4, 0x30, 0x48, 0x60, 0x6c]);
    body.extend_from_slice(rsne);
    body.extend_from_slice(&dh);
    g.mgmt(0, true, sta, seq_sta, &body, i)?;
    body.clear();
    body.extend_from_slice(&0x0411u16.to_le_bytes());
    body.extend_from_slice(&0u16.to_le_bytes());
    let aid = ((i + 1) as u16 & 0x07ff) | 0xc000;
    body.extend_from_slice(&aid.to_le_bytes());
    body.extend_from_slice(&[0x01, 8, 0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24]);
    body.extend_from_slice(&[50, 4, 0x30, 0x48, 0x60, 0x6c]);
    if !dh.is_empty() {
        let mut k = [0u8; 32];
        g.rng.fill_bytes(&mut k);
        body.extend_from_slice(&[255, 35, 32]);
        body.extend_from_slice(&19u16.to_le_bytes());
        body.extend_from_slice(&k);
    }
    g.mgmt(1, false, sta, seq_sta, &body, i)
}

/// A QoS Data frame (TID 0) carrying an IPv4/UDP datagram between the
/// station and the server behind the AP, protected under the PTK.
fn data_frame(
    g: &mut Gen<'_>,
    st: &mut Station,
    i: usize,
    uplink: bool,
    n: usize,
) -> anyhow::Result<()> {
    let text = payload_text(i, uplink, n);
    let mut p = std::mem::take(&mut g.plain);
    let (src, dst) = if uplink {
        let seq = Gen::seq(&mut st.seq);
        if g.cfg.wds {
            // From the peer to the AP, for the server behind the AP.
            Gen::header4(
                &mut p,
                [0x88, 0x03],
                44,
                [BSSID, st.addr, SERVER, st.addr],
                seq,
            );
        } else {
            Gen::header(&mut p, [0x88, 0x01], 44, BSSID, st.addr, SERVER, seq);
        }
        (sta_ip(i), SERVER_IP)
    } else {
        let seq = Gen::seq(&mut g.ap_seq);
        if g.cfg.wds {
            Gen::header4(
                &mut p,
                [0x88, 0x03],
                44,
                [st.addr, BSSID, st.addr, SERVER],
                seq,
            );
        } else {
            Gen::header(&mut p, [0x88, 0x02], 44, st.addr, BSSID, SERVER, seq);
        }
        (SERVER_IP, sta_ip(i))
    };
    p.extend_from_slice(&[0, 0]); // QoS Control: TID 0, normal ack
    push_ipv4_udp(&mut p, src, dst, n as u16, &text);
    g.plain = p;
    let pn = if uplink {
        st.supp.next_pn()
    } else {
        st.auth.next_pn()
    }
    .ok_or_else(|| anyhow!("no PTK"))?;
    g.emit_protected(&st.ptk, pn, 0, FrameKind::Data, Some(i))?;
    if g.cfg.retries {
        st.sent += 1;
        if st.sent % 5 == 0 {
            g.emit_again(g.last_len, true, Some(i))?;
        } else if st.sent % 7 == 0 {
            g.emit_again(g.last_len, false, Some(i))?;
        }
    }
    Ok(())
}

/// A broadcast Data frame from the AP (From DS) protected under the GTK.
fn group_frame(
    g: &mut Gen<'_>,
    key: &DataKey,
    pn: u64,
    key_id: u8,
    n: usize,
) -> anyhow::Result<()> {
    let text = format!("wisec synth group {n:07} ");
    let mut p = std::mem::take(&mut g.plain);
    let seq = Gen::seq(&mut g.ap_seq);
    Gen::header(
        &mut p,
        [0x08, 0x02],
        0,
        MacAddr::BROADCAST,
        BSSID,
        SERVER,
        seq,
    );
    push_ipv4_udp(&mut p, SERVER_IP, [10, 255, 255, 255], n as u16, &text);
    g.plain = p;
    g.emit_protected(key, pn, key_id, FrameKind::GroupData, None)
}

/// Writes the session to `path` (pcap when it ends in `.pcap` or
/// `.pcap.gz`, pcapng otherwise; gzip-compressed when it ends in `.gz`).
/// Refuses to overwrite a file unless `force`.
pub fn write_capture(cfg: &SynthConfig, path: &Path, force: bool) -> anyhow::Result<SynthSummary> {
    write_capture_syncing(cfg, path, force, crate::outfile::SYNC_EVERY).map(|(s, _)| s)
}

/// [`write_capture`], with the file sent to disk in the background every
/// `every` bytes; returns also how many times it was.
fn write_capture_syncing(
    cfg: &SynthConfig,
    path: &Path,
    force: bool,
    every: u64,
) -> anyhow::Result<(SynthSummary, u64)> {
    let name = path.to_string_lossy().to_ascii_lowercase();
    let gz = name.ends_with(".gz");
    let format = if name.ends_with(".pcap") || name.ends_with(".pcap.gz") {
        Format::Pcap
    } else {
        Format::Pcapng
    };
    let stdout = crate::outfile::is_stdio(path);
    crate::outfile::check_target("OUT", path, &[], &[], force)
        .map_err(|e| anyhow::anyhow!(e.into_message()))?;
    check_size(cfg)?;
    if !stdout && !crate::outfile::is_stream(path) {
        // Where the file will be: beside the file a symbolic link names.
        let dir = crate::outfile::dir_of(&crate::outfile::rename_target(path));
        let need = estimated_bytes(cfg) / if gz { 2 } else { 1 };
        crate::outfile::check_space(&dir, need, "the capture")?;
    }
    // A temporary file beside OUT, renamed into place once complete (and
    // removed on an error or a signal); standard output for `-`.
    let pending = if stdout {
        None
    } else {
        Some(crate::outfile::Pending::create(path, force)?)
    };
    // Sent to disk in the background as it grows, so that the final sync
    // before the rename waits only for the last few megabytes.
    let dest = match &pending {
        Some(p) => crate::outfile::Dest::File(p.syncing(every)?),
        None => crate::outfile::Dest::Stdout(std::io::stdout()),
    };
    let name = crate::outfile::shown(path, "standard output");
    let out = crate::outfile::Sink::new(dest, gz.then(flate2::Compression::fast));
    let mut w = CaptureWriter::new(out, format);
    let link = if cfg.radiotap {
        LINKTYPE_RADIOTAP
    } else {
        LINKTYPE_IEEE802_11
    };
    let mut iface = Interface::new(link, 65535);
    iface.tsresol = 6;
    w.write_interface(&iface)
        .with_context(|| format!("{name}: cannot write"))?;
    let mut pkt = Packet {
        interface: 0,
        timestamp: 0,
        orig_len: 0,
        data: Vec::with_capacity(BUF_LEN + 64),
    };
    let summary = generate(cfg, &mut |f: &SynthFrame<'_>| {
        pkt.timestamp = f.timestamp_us;
        pkt.data.clear();
        pkt.data.extend_from_slice(f.packet);
        pkt.orig_len = f.packet.len() as u32;
        w.write_packet(&pkt)
    })?;
    let syncs = w
        .into_inner()
        .and_then(|out| out.finish())
        .with_context(|| format!("{name}: cannot write"))?;
    if let Some(p) = pending {
        p.commit()?;
    }
    Ok((summary, syncs))
}

/// Most unicast data frames (stations × frames) one session may hold: a
/// billion frames is about 150 GB of capture.
pub const MAX_DATA_FRAMES: u64 = 1_000_000_000;

/// Refuses sessions beyond [`MAX_DATA_FRAMES`].
pub fn check_size(cfg: &SynthConfig) -> anyhow::Result<()> {
    let n = (cfg.stations as u64).saturating_mul(cfg.frames as u64);
    if n > MAX_DATA_FRAMES {
        bail!(
            "--frames {} × --stations {} is {n} data frames; at most {MAX_DATA_FRAMES} \
(about 150 GB of capture)",
            cfg.frames,
            cfg.stations
        );
    }
    Ok(())
}

/// About how many bytes the capture of `cfg` takes, uncompressed: the
/// data frames with their record headers, a quarter as many group frames,
/// beacons and handshakes.
pub fn estimated_bytes(cfg: &SynthConfig) -> u64 {
    let data = (cfg.stations as u64).saturating_mul(cfg.frames as u64);
    let per = 180 + if cfg.radiotap { 24 } else { 0 };
    data.saturating_add(data / 4)
        .saturating_mul(per)
        .saturating_add((cfg.stations as u64).saturating_mul(2048))
}

/// The `wisec synth` command line.
pub mod cli {
    use super::{write_capture, SynthAkm, SynthCipher, SynthConfig};
    use clap::{Args, ValueEnum};
    use std::io::Write;
    use std::path::PathBuf;

    /// Examples shown by `wisec synth --help`.
    pub const EXAMPLES: &str = "\
Examples:
  # WPA2-PSK with CCMP-128, 3 stations, 100 data frames each
  wisec synth psk.pcapng --akm psk --cipher ccmp128 --passphrase 'correct horse' \\
      --ssid wisec --stations 3 --frames 100

  # PSK-SHA256 with GCMP-256, PMF and a group key handshake, radiotap
  wisec synth pmf.pcap --akm psk-sha256 --cipher gcmp256 --passphrase 'correct horse' \\
      --ssid wisec --pmf --group-rekey --radiotap

  # SAE with a given PMK
  wisec synth sae.pcapng --akm sae --cipher ccmp128 --ssid wisec \\
      --pmk 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f

  # FT-PSK: an initial association with one AP, a roam to a second
  wisec synth ft.pcap --akm ft-psk --passphrase 'correct horse' --ssid wisec

  # What real captures hold: a reassociation, retransmissions, WDS links
  wisec synth real.pcap --passphrase 'correct horse' --ssid wisec \\
      --reassociate --retries --wds";

    #[derive(Debug, Clone, Copy, ValueEnum)]
    enum AkmArg {
        /// 00-0F-AC:2, PSK (PMK from the passphrase)
        Psk,
        /// 00-0F-AC:6, PSK with SHA-256
        PskSha256,
        /// 00-0F-AC:8, SAE (with --pmk)
        Sae,
        /// 00-0F-AC:18, OWE (with --pmk)
        Owe,
        /// 00-0F-AC:4, FT using PSK: two APs, a roam (with --passphrase)
        FtPsk,
        /// 00-0F-AC:3, FT over 802.1X: two APs, a roam (with --msk)
        #[value(name = "ft-8021x")]
        Ft8021x,
    }

    #[derive(Debug, Clone, Copy, ValueEnum)]
    enum CipherArg {
        /// CCMP-128
        Ccmp128,
        /// CCMP-256
        Ccmp256,
        /// GCMP-128
        Gcmp128,
        /// GCMP-256
        Gcmp256,
        /// TKIP (insecure, for legacy tests)
        Tkip,
    }

    /// Arguments of `wisec synth`.
    #[derive(Debug, Args)]
    pub struct SynthArgs {
        /// Output capture: pcap if it ends in .pcap or .pcap.gz, else pcapng; gzip if .gz; `-` for pcapng on standard output (the summary then goes to standard error)
        #[arg(value_name = "OUT")]
        output: PathBuf,
        /// AKM suite
        #[arg(long, value_enum, default_value = "psk")]
        akm: AkmArg,
        /// Pairwise and group cipher
        #[arg(long, value_enum, default_value = "ccmp128")]
        cipher: CipherArg,
        /// Passphrase (8 to 63 printable ASCII characters) for psk and psk-sha256
        #[arg(long, value_name = "P", default_value = "")]
        passphrase: String,
        /// SSID
        #[arg(long, value_name = "S")]
        ssid: String,
        /// PMK in hex for sae (32 bytes) and owe (32 or 48 bytes)
        #[arg(long, value_name = "HEX")]
        pmk: Option<String>,
        /// MSK in hex for ft-8021x (at least 64 bytes)
        #[arg(long, value_name = "HEX")]
        msk: Option<String>,
        /// Number of stations
        #[arg(long, value_name = "N", default_value_t = 1)]
        stations: usize,
        /// Unicast data frames per station, alternately down- and uplink
        #[arg(long, value_name = "N", default_value_t = 16)]
        frames: usize,
        /// Management frame protection: IGTK, protected deauthentication, BIP
        /// (always on for sae and owe)
        #[arg(long)]
        pmf: bool,
        /// Run a group key handshake halfway through the data
        #[arg(long)]
        group_rekey: bool,
        /// Seed of nonces, keys and random fields, 0 to 2^63-1
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = crate::cli::num::seed)]
        seed: u64,
        /// Prefix every frame with a radiotap header
        #[arg(long)]
        radiotap: bool,
        /// Halfway through, deauthenticate every station, which
        /// reassociates and runs a new 4-way handshake (its key replay
        /// counter started anew)
        #[arg(long)]
        reassociate: bool,
        /// Send every 5th data frame of a station again as a MAC
        /// retransmission (Retry bit) and write every 7th twice (a capture
        /// duplicate)
        #[arg(long)]
        retries: bool,
        /// Stations are WDS peers: four-address data and EAPOL frames
        #[arg(long)]
        wds: bool,
        /// Overwrite OUT if it exists
        #[arg(long)]
        force: bool,
        /// Print the summary as JSON on standard output
        #[arg(long)]
        json: bool,
    }

    /// The optional parts of the summary line.
    fn extras(s: &super::SynthSummary) -> String {
        let mut t = String::new();
        for (n, what) in [
            (s.reassociations, "reassociations"),
            (s.retransmissions, "MAC retransmissions"),
            (s.duplicates, "capture duplicates"),
            (s.ft_roams, "FT roams"),
        ] {
            if n > 0 {
                t.push_str(&format!(", {n} {what}"));
            }
        }
        t
    }

    /// Why `wisec synth` failed.
    #[derive(Debug)]
    pub enum Error {
        /// A usage error (exit status 2).
        Usage(String),
        /// A runtime error (exit status 1).
        Runtime(anyhow::Error),
    }

    /// Runs `wisec synth`.
    pub fn run(a: SynthArgs) -> Result<(), Error> {
        if a.ssid.is_empty() || a.ssid.len() > 32 {
            return Err(Error::Usage(format!(
                "--ssid: 1 to 32 octets (this one has {})",
                a.ssid.len()
            )));
        }
        let akm = match a.akm {
            AkmArg::Psk => SynthAkm::Psk,
            AkmArg::PskSha256 => SynthAkm::PskSha256,
            AkmArg::Sae => SynthAkm::Sae,
            AkmArg::Owe => SynthAkm::Owe,
            AkmArg::FtPsk => SynthAkm::FtPsk,
            AkmArg::Ft8021x => SynthAkm::Ft8021x,
        };
        let cipher = match a.cipher {
            CipherArg::Ccmp128 => SynthCipher::Ccmp128,
            CipherArg::Ccmp256 => SynthCipher::Ccmp256,
            CipherArg::Gcmp128 => SynthCipher::Gcmp128,
            CipherArg::Gcmp256 => SynthCipher::Gcmp256,
            CipherArg::Tkip => SynthCipher::Tkip,
        };
        let pmk = match &a.pmk {
            Some(h) => Some(
                crate::decrypt::keys::parse_hex(h)
                    .map_err(|m| Error::Usage(format!("--pmk: {m}")))?,
            ),
            None => None,
        };
        let msk = match &a.msk {
            Some(h) => Some(
                crate::decrypt::keys::parse_hex(h)
                    .map_err(|m| Error::Usage(format!("--msk: {m}")))?,
            ),
            None => None,
        };
        if msk.is_some() != (akm == SynthAkm::Ft8021x) {
            return Err(Error::Usage(
                "--msk goes with --akm ft-8021x, and it needs one".into(),
            ));
        }
        if msk.as_ref().is_some_and(|m| m.len() < 64) {
            return Err(Error::Usage("--msk: at least 64 bytes".into()));
        }
        if akm.is_ft() && (cipher != SynthCipher::Ccmp128 || a.pmf) {
            return Err(Error::Usage(
                "--akm ft-psk and ft-8021x sessions use --cipher ccmp128 without --pmf".into(),
            ));
        }
        if akm == SynthAkm::Ft8021x {
            if pmk.is_some() {
                return Err(Error::Usage("--pmk is for sae and owe".into()));
            }
        } else if akm.uses_passphrase() {
            if pmk.is_some() {
                return Err(Error::Usage(
                    "--pmk is for sae and owe; psk and psk-sha256 take --passphrase".into(),
                ));
            }
            if a.passphrase.is_empty() {
                return Err(Error::Usage(format!(
                    "--akm {}: give the network's --passphrase",
                    a.akm
                        .to_possible_value()
                        .map_or("psk".into(), |v| v.get_name().to_string())
                )));
            }
            wisec_crypto::kdf::check_passphrase(a.passphrase.as_bytes(), a.ssid.as_bytes())
                .map_err(|e| Error::Usage(format!("--passphrase: {e}")))?;
        } else if pmk.is_none() {
            return Err(Error::Usage("--pmk is required for sae and owe".into()));
        }
        if cipher == SynthCipher::Tkip && akm != SynthAkm::Psk {
            return Err(Error::Usage(
                "--cipher tkip: TKIP goes with --akm psk only".into(),
            ));
        }
        if a.pmf && cipher == SynthCipher::Tkip {
            return Err(Error::Usage(
                "--pmf: management frame protection needs CCMP or GCMP, not TKIP".into(),
            ));
        }
        if a.stations == 0 || a.stations > 0xffff {
            return Err(Error::Usage("--stations: 1 to 65535".into()));
        }
        let frames = (a.stations as u64).saturating_mul(a.frames as u64);
        if frames > super::MAX_DATA_FRAMES {
            return Err(Error::Usage(format!(
                "--frames {} × --stations {}: at most {} data frames in all (about 150 GB)",
                a.frames,
                a.stations,
                super::MAX_DATA_FRAMES
            )));
        }
        // OUT is checked before any work, as by the other commands: one
        // that cannot take a capture (a directory, a socket) is a usage
        // error, an existing file without --force a runtime one.
        match crate::outfile::check_target("OUT", &a.output, &[], &[], a.force) {
            Ok(()) => {}
            Err(crate::outfile::TargetError::Clash(m)) => return Err(Error::Usage(m)),
            Err(crate::outfile::TargetError::Exists(m)) => {
                return Err(Error::Runtime(anyhow::anyhow!(m)))
            }
        }
        let cfg = SynthConfig {
            akm,
            cipher,
            passphrase: a.passphrase,
            ssid: a.ssid.into_bytes(),
            pmk,
            msk,
            stations: a.stations,
            frames: a.frames,
            pmf: a.pmf,
            group_rekey: a.group_rekey,
            seed: a.seed,
            radiotap: a.radiotap,
            reassociate: a.reassociate,
            retries: a.retries,
            wds: a.wds,
        };
        let s = write_capture(&cfg, &a.output, a.force).map_err(Error::Runtime)?;
        // The summary goes to standard error when the capture went to
        // standard output. A closed standard output (a pager quit early)
        // is not an error.
        let mut report: Box<dyn Write> = if crate::outfile::is_stdio(&a.output) {
            Box::new(std::io::stderr().lock())
        } else {
            Box::new(std::io::stdout().lock())
        };
        let out_name = crate::outfile::shown(&a.output, "standard output");
        if a.json {
            let text = serde_json::to_string_pretty(&s).map_err(|e| Error::Runtime(e.into()))?;
            let _ = writeln!(report, "{text}");
        } else {
            let _ = writeln!(
                report,
                "wrote {}: {} frames ({} protected): {} beacons, {} authentication/association, \
{} EAPOL ({} protected), {} unicast data, {} group data, {} protected management, {} BIP; \
{} stations, {} group rekeys{}",
                out_name,
                s.frames,
                s.protected,
                s.beacons,
                s.handshake_mgmt,
                s.eapol + s.protected_eapol,
                s.protected_eapol,
                s.data,
                s.group_data,
                s.protected_mgmt,
                s.bip_mgmt,
                s.stations,
                s.group_rekeys,
                extras(&s)
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_random_is_reproducible() {
        let mut a = SeededRandom::new(7);
        let mut b = SeededRandom::new(7);
        let mut c = SeededRandom::new(8);
        let (mut x, mut y, mut z) = ([0u8; 13], [0u8; 13], [0u8; 13]);
        a.fill_bytes(&mut x);
        b.fill_bytes(&mut y);
        c.fill_bytes(&mut z);
        assert_eq!(x, y);
        assert_ne!(x, z);
    }

    /// The capture is sent to disk in the background as it is written
    /// (here every 16 KiB, for many marks from a small capture), and the
    /// bytes are those written without any mark, in every container.
    #[test]
    fn captures_synced_in_the_background_are_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = SynthConfig::new("wisec test passphrase", "wisec");
        cfg.stations = 4;
        cfg.frames = 300;
        for name in ["s.pcap", "s.pcapng", "s.pcapng.gz"] {
            let marked = dir.path().join(format!("marked-{name}"));
            let plain = dir.path().join(format!("plain-{name}"));
            let (a, syncs) = write_capture_syncing(&cfg, &marked, false, 16 << 10).unwrap();
            let (b, none) = write_capture_syncing(&cfg, &plain, false, u64::MAX).unwrap();
            assert_eq!(a, b);
            let bytes = std::fs::read(&marked).unwrap();
            assert_eq!(bytes, std::fs::read(&plain).unwrap(), "{name}");
            // A background sync per 16 KiB mark, coalesced while one runs.
            assert!(
                syncs >= 1,
                "{name}: {} bytes, no background sync",
                bytes.len()
            );
            assert_eq!(none, 0, "{name}");
        }
    }

    #[test]
    fn ip_checksum_of_rfc_1071_example() {
        // RFC 1071, 3: the one's complement sum of 00 01 f2 03 f4 f5 f6 f7
        // is ddf2, so the checksum is 220d.
        assert_eq!(
            ip_checksum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]),
            0x220d
        );
        assert_ne!(
            ip_checksum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf6]),
            0x220d
        );
    }
}
