//! Shared test harness: a deterministic random generator, one AP and some
//! stations on a lossless virtual medium with a virtual clock, and frame
//! forging helpers for an attacker.
#![allow(dead_code)]

use std::time::Duration;
use wisec_proto::discosec::*;
use wisec_proto::time::Instant;
use wisec_wire::discosec::{DiscoElement, PublicKeyElement};
use wisec_wire::frame_control::{FrameControl, FrameType};
use wisec_wire::mgmt::{MgmtFrame, MgmtSubtype};
use wisec_wire::{ElementId, ElementWriter, HeaderRepr, MacAddr};

/// SplitMix64: deterministic, NOT cryptographically secure. Marked as a
/// `CryptoRng` only so the tests are reproducible.
#[derive(Clone)]
pub struct TestRng(pub u64);

impl rand_core::TryRng for TestRng {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.try_next_u64()? as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Ok(z ^ (z >> 31))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for c in dst.chunks_mut(8) {
            let v = self.try_next_u64()?.to_le_bytes();
            c.copy_from_slice(&v[..c.len()]);
        }
        Ok(())
    }
}
impl rand_core::TryCryptoRng for TestRng {}

pub const BSSID: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);
pub const SSID: &[u8] = b"wisec-lab";

pub fn sta_addr(i: usize) -> MacAddr {
    MacAddr([0x02, 0, 0, 0, 1, i as u8])
}

pub type TestAp = Ap<TestRng, 64, 8>;

pub fn ap_config() -> ApConfig {
    ApConfig::new(BSSID, SSID).unwrap()
}

pub fn sta_config(i: usize) -> StaConfig {
    StaConfig::new(sta_addr(i), SSID).unwrap()
}

/// A frame seen on the medium: who sent it and its bytes.
#[derive(Debug, Clone)]
pub struct Captured {
    pub from: MacAddr,
    pub frame: Vec<u8>,
}

impl Captured {
    pub fn subtype(&self) -> MgmtSubtype {
        MgmtFrame::new_unchecked(&self.frame[..]).subtype()
    }
}

/// One AP and stations on a lossless medium with a virtual clock.
pub struct Net {
    pub now: Instant,
    pub ap: TestAp,
    pub stas: Vec<Sta<TestRng>>,
    pub capture: Vec<Captured>,
    pub ap_errors: Vec<Error>,
    pub sta_errors: Vec<(usize, Error)>,
    pub ap_events: Vec<ApEvent>,
    pub sta_events: Vec<(usize, StaEvent)>,
}

impl Net {
    pub fn new(cfg: ApConfig, stas: Vec<StaConfig>) -> Net {
        let now = Instant::from_millis(1);
        let ap = TestAp::new(now, cfg, TestRng(1));
        let stas = stas
            .into_iter()
            .enumerate()
            .map(|(i, c)| Sta::new(c, TestRng(100 + i as u64)))
            .collect();
        Net {
            now,
            ap,
            stas,
            capture: Vec::new(),
            ap_errors: Vec::new(),
            sta_errors: Vec::new(),
            ap_events: Vec::new(),
            sta_events: Vec::new(),
        }
    }

    /// Moves every queued frame to its receivers until the medium is
    /// quiet.
    pub fn deliver(&mut self) {
        for _ in 0..1000 {
            let mut moved = false;
            while let Some(f) = self.ap.poll_transmit().map(|f| f.to_vec()) {
                moved = true;
                self.capture.push(Captured {
                    from: BSSID,
                    frame: f.clone(),
                });
                for (i, s) in self.stas.iter_mut().enumerate() {
                    match s.handle_rx(self.now, &f) {
                        Ok(()) | Err(Error::NotForUs) => {}
                        Err(e) => self.sta_errors.push((i, e)),
                    }
                }
            }
            for i in 0..self.stas.len() {
                while let Some(f) = self.stas[i].poll_transmit().map(|f| f.to_vec()) {
                    moved = true;
                    let from = self.stas[i].config().addr;
                    self.capture.push(Captured {
                        from,
                        frame: f.clone(),
                    });
                    if let Err(e) = self.ap.handle_rx(self.now, &f) {
                        self.ap_errors.push(e);
                    }
                }
            }
            self.collect_events();
            if !moved {
                return;
            }
        }
        panic!("medium never went quiet");
    }

    fn collect_events(&mut self) {
        while let Some(e) = self.ap.poll_event() {
            self.ap_events.push(e);
        }
        for (i, s) in self.stas.iter_mut().enumerate() {
            while let Some(e) = s.poll_event() {
                self.sta_events.push((i, e));
            }
        }
    }

    /// Runs timers and the medium until `until`.
    pub fn run_until(&mut self, until: Instant) {
        self.deliver();
        loop {
            let next = std::iter::once(self.ap.poll_timeout())
                .chain(self.stas.iter().map(|s| s.poll_timeout()))
                .flatten()
                .min();
            match next {
                Some(t) if t <= until => {
                    self.now = self.now.max(t);
                    self.ap.handle_timeout(self.now);
                    for s in self.stas.iter_mut() {
                        s.handle_timeout(self.now);
                    }
                    self.deliver();
                }
                _ => break,
            }
        }
        self.now = self.now.max(until);
    }

    pub fn run_for(&mut self, d: Duration) {
        let until = self.now + d;
        self.run_until(until);
    }

    /// Connects station `i` and runs until it is associated (or `limit`
    /// passes).
    pub fn associate(&mut self, i: usize, limit: Duration) -> bool {
        let now = self.now;
        self.stas[i].connect(now, BSSID);
        let until = self.now + limit;
        while self.now < until {
            self.run_for(Duration::from_millis(20));
            if self.stas[i].state() == StaState::Associated {
                return true;
            }
        }
        false
    }

    /// Injects a frame at the AP as an attacker would.
    pub fn inject_ap(&mut self, frame: &[u8]) -> Result<(), Error> {
        let r = self.ap.handle_rx(self.now, frame);
        self.deliver();
        r
    }

    /// Injects a frame at station `i`.
    pub fn inject_sta(&mut self, i: usize, frame: &[u8]) -> Result<(), Error> {
        let r = self.stas[i].handle_rx(self.now, frame);
        self.deliver();
        r
    }

    pub fn last_from(&self, from: MacAddr, subtype: MgmtSubtype) -> Option<Vec<u8>> {
        self.capture
            .iter()
            .rev()
            .find(|c| c.from == from && c.subtype() == subtype)
            .map(|c| c.frame.clone())
    }

    pub fn last_beacon(&self) -> Vec<u8> {
        self.last_from(BSSID, MgmtSubtype::Beacon)
            .expect("a beacon")
    }
}

/// A management header.
pub fn header(subtype: MgmtSubtype, a1: MacAddr, a2: MacAddr, a3: MacAddr) -> Vec<u8> {
    let h = HeaderRepr {
        frame_control: FrameControl::new(FrameType::Management, subtype.to_u8()),
        duration: 0,
        addr1: a1,
        addr2: Some(a2),
        addr3: Some(a3),
        sequence_control: Some(0),
        addr4: None,
        qos_control: None,
        ht_control: None,
    };
    let mut b = vec![0u8; 24];
    h.emit(&mut b).unwrap();
    b
}

/// A legacy (plain) frame from `from` to `to` in BSS `BSSID`.
pub fn plain(subtype: MgmtSubtype, to: MacAddr, from: MacAddr, fixed: &[u8]) -> Vec<u8> {
    let mut f = header(subtype, to, from, BSSID);
    f.extend_from_slice(fixed);
    f
}

/// An open-system authentication request (transaction 1), plain.
pub fn auth_request(from: MacAddr) -> Vec<u8> {
    plain(
        MgmtSubtype::Authentication,
        BSSID,
        from,
        &[0, 0, 1, 0, 0, 0],
    )
}

/// A DiscoSec authentication request as an attacker with its own key
/// builds it: PK_STA, AT, then SEQ+MAC under the SK the attacker derives
/// from the AP's public key. Returns the frame and the attacker's session.
pub fn forge_auth(
    ap_pk: &PublicPoint,
    from: MacAddr,
    token: u32,
    mode: AuthMode,
    rng: &mut TestRng,
) -> (Vec<u8>, Session) {
    let key = KeyPair::generate(ap_pk.curve(), rng);
    forge_auth_with(ap_pk, &key, from, token, mode)
}

pub fn forge_auth_with(
    ap_pk: &PublicPoint,
    key: &KeyPair,
    from: MacAddr,
    token: u32,
    mode: AuthMode,
) -> (Vec<u8>, Session) {
    let mk = key.agree(ap_pk.as_bytes()).unwrap();
    let mut s = Session::new(&mk.session_key(token), token, mode, DEFAULT_WINDOW).unwrap();
    let mut f = auth_request(from);
    let mut els = [0u8; 200];
    let mut w = ElementWriter::new(&mut els);
    w.push_with(|b| {
        DiscoElement::PkSta(PublicKeyElement {
            group: key.curve().group(),
            point: key.public().as_bytes(),
        })
        .emit(b)
    })
    .unwrap();
    w.push_with(|b| DiscoElement::Token(token).emit(b)).unwrap();
    f.extend_from_slice(w.finish());
    let n = f.len();
    f.resize(n + 33, 0);
    s.seal(&mut f, n).unwrap();
    (f, s)
}

/// Seals a plain frame with a session (an attacker or a cloned legitimate
/// session).
pub fn seal(s: &mut Session, mut f: Vec<u8>) -> Vec<u8> {
    let n = f.len();
    f.resize(n + 33, 0);
    let m = s.seal(&mut f, n).unwrap();
    f.truncate(m);
    f
}

/// The token set of a beacon.
pub fn beacon_tokens(beacon: &[u8]) -> (u8, Vec<u32>) {
    let f = MgmtFrame::new_checked(beacon).unwrap();
    let info = wisec_wire::discosec::DiscoInfo::parse(f.variable()).unwrap();
    let ts = info.token_set.unwrap();
    (ts.interval, ts.iter().collect())
}

/// Whether a frame carries the SSID element (a sanity check of builders).
pub fn has_ssid(frame: &[u8]) -> bool {
    let f = MgmtFrame::new_checked(frame).unwrap();
    f.elements().find_id(ElementId::SSID).is_some()
}
