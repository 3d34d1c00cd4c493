//! A live WPA2-Enterprise lab: a BSS with one station `sta1`, the AP, a
//! wired `server` (ping target) and a wired `radius` host running
//! FreeRADIUS (PEAP, EAP-TLS, EAP-TTLS, EAP-MD5 on port 1812) and wisec's
//! LEAP server (port 1645); wpa_supplicant on the station's TAP is the
//! EAP peer. [`EnterpriseLab::trial`] runs one whole association —
//! association, EAP, the 4-way handshake with the MSK's PMK, ping across
//! the protected link — and reads its times from the channel capture.
//!
//! ```text
//!   sta1: wpa_supplicant -D wired -i wlan0 ~~ medium ~~ AP (802.1X) --UDP--> radius: freeradius, LEAP
//!                                                                  `-- br0 -- server (ping)
//! ```

use super::bss::{BssConfig, BssOutcome, EnterpriseConfig, LiveBss};
use super::leap_server::{LeapRadiusServer, LEAP_PORT};
use super::net::ProcId;
use super::radius::{self, FreeRadiusConfig, Pki, PASSWORD, SHARED_SECRET, USER};
use super::supplicant::{EapMethod, PeerConfig, PeerLog, Supplicant};
use super::sys::{self, LiveError, Result};
use super::tools::{self, PingResult};
use crate::bss::{Dot1xOutcome, Dot1xRecord};
use crate::cost::{Calibration, Security};
use crate::live::bss::{host_mac, HostDef};
use crate::phy::{PhyProfile, Rate};
use serde::{Deserialize, Serialize};
use std::net::{Ipv4Addr, SocketAddrV4};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use wisec_wire::eap::{Code as EapCode, EapPacket, EapType};
use wisec_wire::eapol::{EapolFrame, KeyInfo, PacketType};
use wisec_wire::DataFrame;

/// The programs a WPA2-Enterprise run needs (each with its Debian
/// package in [`sys::debian_package`]).
pub const PROGRAMS: &[&str] = &["ip", "ping", "freeradius", "wpa_supplicant", "openssl"];

/// The RADIUS host's address.
pub const RADIUS_IP: Ipv4Addr = Ipv4Addr::new(10, 99, 0, 2);

/// What the station presents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Credentials {
    /// The right password and a valid client certificate.
    Valid,
    /// A wrong password (EAP-TLS: not applicable, the certificate is
    /// valid).
    WrongPassword,
    /// The EAP-TLS client certificate expired (2020); the password is
    /// right.
    ExpiredCertificate,
}

impl Credentials {
    /// The short name.
    pub const fn name(self) -> &'static str {
        match self {
            Credentials::Valid => "valid",
            Credentials::WrongPassword => "wrong-password",
            Credentials::ExpiredCertificate => "expired-certificate",
        }
    }

    /// From its short name.
    pub fn parse(s: &str) -> Option<Credentials> {
        [
            Credentials::Valid,
            Credentials::WrongPassword,
            Credentials::ExpiredCertificate,
        ]
        .into_iter()
        .find(|c| c.name() == s)
    }
}

/// One association to run.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthTrial {
    /// The EAP method.
    pub method: EapMethod,
    /// The data-frame suite.
    pub security: Security,
    /// The link rate, Mb/s.
    pub mbps: f64,
    /// Frame loss each way between the station and the AP, 0 to 1.
    pub loss: f64,
    /// What the station presents.
    pub credentials: Credentials,
    /// Echo requests across the protected link.
    pub ping_count: u32,
    /// The medium's seed.
    pub seed: u64,
    /// The AP's RADIUS retransmission timeout, ms, and transmissions.
    pub radius_timeout_ms: u64,
    /// Transmissions of an Access-Request.
    pub radius_tries: u8,
}

impl AuthTrial {
    /// A trial of `method` on 802.11b at 2 Mb/s with CCMP-128, valid
    /// credentials, no loss, ten pings.
    pub fn new(method: EapMethod) -> AuthTrial {
        AuthTrial {
            method,
            security: Security::Ccmp128,
            mbps: 2.0,
            loss: 0.0,
            credentials: Credentials::Valid,
            ping_count: 10,
            seed: 1,
            radius_timeout_ms: 3000,
            radius_tries: 3,
        }
    }
}

/// One EAPOL frame seen on the channel (first transmissions only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EapolKind {
    /// EAPOL-Start.
    Start,
    /// EAPOL-Logoff.
    Logoff,
    /// An EAP packet.
    Eap {
        /// Its Code.
        code: EapCode,
        /// Its Type, if a Request or Response.
        eap_type: Option<EapType>,
    },
    /// An EAPOL-Key frame: message 1 to 4 of the 4-way handshake (0 for
    /// another kind).
    Key(u8),
}

/// An EAPOL frame on the channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EapolEvent {
    /// When its transmission started (capture time, ns).
    pub t_ns: u64,
    /// Sent by the station (to the AP).
    pub from_station: bool,
    /// What it is.
    pub kind: EapolKind,
}

/// The message number of a pairwise EAPOL-Key frame (12.7.6.2 to
/// 12.7.6.5): ACK without MIC is 1, MIC without ACK or Secure is 2, ACK
/// with MIC and Install is 3, MIC with Secure without ACK is 4.
fn key_message(k: KeyInfo) -> u8 {
    match (k.key_ack(), k.key_mic(), k.install(), k.secure()) {
        (true, false, _, _) => 1,
        (false, true, _, false) => 2,
        (true, true, true, _) => 3,
        (false, true, _, true) => 4,
        _ => 0,
    }
}

/// Every unprotected EAPOL frame of `mpdus` (capture time, MPDU), first
/// transmissions only (the Retry bit clear).
pub fn eapol_events(mpdus: &[(u64, Vec<u8>)]) -> Vec<EapolEvent> {
    let mut v = Vec::new();
    for (t, m) in mpdus {
        let Ok(f) = DataFrame::new_checked(&m[..]) else {
            continue;
        };
        let fc = f.frame_control();
        if !fc.is_data()
            || fc.protected()
            || fc.retry()
            || f.ethertype().map(|e| e.0) != Some(0x888e)
        {
            continue;
        }
        let Ok(e) = EapolFrame::new_checked(f.msdu_payload()) else {
            continue;
        };
        let kind = match e.packet_type() {
            PacketType::Start => EapolKind::Start,
            PacketType::Logoff => EapolKind::Logoff,
            PacketType::Eap => match EapPacket::new_checked(e.body()) {
                Ok(p) => EapolKind::Eap {
                    code: p.code(),
                    eap_type: p.eap_type(),
                },
                Err(_) => continue,
            },
            PacketType::Key => {
                let b = e.body();
                let ki = b.get(1..3).map_or(0, |x| u16::from_be_bytes([x[0], x[1]]));
                EapolKind::Key(key_message(KeyInfo(ki)))
            }
            _ => continue,
        };
        v.push(EapolEvent {
            t_ns: *t,
            from_station: fc.to_ds(),
            kind,
        });
    }
    v
}

/// The times of one authentication on the channel, ms from its start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ChannelTimes {
    /// From the first EAPOL frame (EAPOL-Start, or the AP's
    /// EAP-Request/Identity) to the AP's last EAP packet (EAP-Success; for
    /// LEAP the AP response that the Access-Accept carried).
    pub eap_ms: Option<f64>,
    /// From the first EAPOL frame to message 4 of the 4-way handshake.
    pub to_msg4_ms: Option<f64>,
    /// From message 1 to message 4.
    pub fourway_ms: Option<f64>,
    /// From the station's EAP-Response/Identity to the AP's last EAP
    /// packet.
    pub from_identity_ms: Option<f64>,
    /// EAP packets the AP sent to the station.
    pub eap_to_station: u32,
    /// EAP packets the station sent.
    pub eap_from_station: u32,
    /// The AP sent EAP-Failure.
    pub eap_failure: bool,
    /// The AP sent EAP-Success.
    pub eap_success: bool,
    /// From the station's first Authentication frame to the AP's
    /// Association Response: the whole exchange of an association whose
    /// keys come with it (DiscoSec).
    pub auth_to_assoc_ms: Option<f64>,
    /// From the station's first Authentication frame to message 4: the
    /// whole 802.11i exchange (authentication, association, EAP, 4-way).
    pub auth_to_msg4_ms: Option<f64>,
}

/// The times of the station's first Authentication frame and the AP's
/// first Association Response in `mpdus` (first transmissions).
fn mgmt_times(mpdus: &[(u64, Vec<u8>)]) -> (Option<u64>, Option<u64>) {
    use wisec_wire::mgmt::MgmtSubtype;
    use wisec_wire::FrameControl;
    let (mut auth, mut assoc) = (None, None);
    for (t, m) in mpdus {
        let (Some(&a), Some(&b)) = (m.first(), m.get(1)) else {
            continue;
        };
        let fc = FrameControl::from_bytes([a, b]);
        if !fc.is_mgmt() || fc.retry() {
            continue;
        }
        let from_ap = m.get(10..16) == Some(&crate::bss::BSSID.0[..]);
        let sub = fc.subtype();
        if sub == MgmtSubtype::Authentication.to_u8() && !from_ap && auth.is_none() {
            auth = Some(*t);
        }
        if sub == MgmtSubtype::AssocResponse.to_u8() && from_ap && assoc.is_none() {
            assoc = Some(*t);
        }
    }
    (auth, assoc)
}

impl ChannelTimes {
    /// The times of the first association in a capture's MPDUs.
    pub fn from_capture(mpdus: &[(u64, Vec<u8>)]) -> ChannelTimes {
        let events = eapol_events(mpdus);
        let mut c = ChannelTimes::from_events(&events);
        let (auth, assoc) = mgmt_times(mpdus);
        let since = |a: Option<u64>, b: Option<u64>| {
            a.zip(b)
                .filter(|(a, b)| b >= a)
                .map(|(a, b)| (b - a) as f64 / 1e6)
        };
        c.auth_to_assoc_ms = since(auth, assoc);
        let msg4 = events
            .iter()
            .find(|e| e.kind == EapolKind::Key(4))
            .map(|e| e.t_ns);
        c.auth_to_msg4_ms = since(auth, msg4);
        c
    }

    /// The times of the first authentication in `events`.
    pub fn from_events(events: &[EapolEvent]) -> ChannelTimes {
        let mut c = ChannelTimes::default();
        let is_ap_eap =
            |e: &&EapolEvent| !e.from_station && matches!(e.kind, EapolKind::Eap { .. });
        let start = events.iter().find(|e| {
            matches!(e.kind, EapolKind::Start)
                || (!e.from_station
                    && matches!(
                        e.kind,
                        EapolKind::Eap {
                            code: EapCode::Request,
                            eap_type: Some(EapType::IDENTITY)
                        }
                    ))
        });
        let Some(start) = start.map(|e| e.t_ns) else {
            return c;
        };
        let ms = |t: u64| Some(t.saturating_sub(start) as f64 / 1e6);
        let msg1 = events
            .iter()
            .find(|e| e.t_ns >= start && e.kind == EapolKind::Key(1))
            .map(|e| e.t_ns);
        let msg4 = events
            .iter()
            .find(|e| {
                e.t_ns >= start && msg1.is_some_and(|m| e.t_ns >= m) && e.kind == EapolKind::Key(4)
            })
            .map(|e| e.t_ns);
        let eap_end = msg1.unwrap_or(u64::MAX);
        let in_eap = || {
            events
                .iter()
                .filter(move |e| e.t_ns >= start && e.t_ns <= eap_end)
        };
        c.eap_to_station = in_eap().filter(is_ap_eap).count() as u32;
        c.eap_from_station = in_eap()
            .filter(|e| e.from_station && matches!(e.kind, EapolKind::Eap { .. }))
            .count() as u32;
        c.eap_success = in_eap().any(|e| {
            !e.from_station
                && matches!(
                    e.kind,
                    EapolKind::Eap {
                        code: EapCode::Success,
                        ..
                    }
                )
        });
        c.eap_failure = in_eap().any(|e| {
            !e.from_station
                && matches!(
                    e.kind,
                    EapolKind::Eap {
                        code: EapCode::Failure,
                        ..
                    }
                )
        });
        let last_ap = in_eap().rfind(is_ap_eap).map(|e| e.t_ns);
        if c.eap_success && !c.eap_failure {
            c.eap_ms = last_ap.and_then(ms);
            let id = in_eap()
                .find(|e| {
                    e.from_station
                        && matches!(
                            e.kind,
                            EapolKind::Eap {
                                code: EapCode::Response,
                                eap_type: Some(EapType::IDENTITY)
                            }
                        )
                })
                .map(|e| e.t_ns);
            if let (Some(i), Some(l)) = (id, last_ap) {
                c.from_identity_ms = Some(l.saturating_sub(i) as f64 / 1e6);
            }
        }
        c.to_msg4_ms = msg4.and_then(ms);
        if let (Some(a), Some(b)) = (msg1, msg4) {
            c.fourway_ms = Some((b - a) as f64 / 1e6);
        }
        c
    }
}

/// How a trial ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AuthResult {
    /// Authenticated and keyed (or, for EAP-MD5, authenticated).
    Success,
    /// The authentication failed, for the reason given.
    Failed(String),
}

/// What one association produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuthOutcome {
    /// How it ended.
    pub result: AuthResult,
    /// The AP's record of it.
    pub record: Option<Dot1xRecord>,
    /// The times on the channel.
    pub channel: ChannelTimes,
    /// The MSK the AP got from the server (hex).
    pub ap_msk: Option<String>,
    /// The MSK the station got from wpa_supplicant (hex).
    pub station_msk: Option<String>,
    /// Ping across the protected link.
    pub ping: Option<PingResult>,
    /// From the AP's first beacon (the medium's start) to the station's
    /// keys installed, ms: scan, authentication, association, EAP and the
    /// 4-way handshake.
    pub connected_ms: Option<f64>,
    /// The medium's run.
    pub medium: BssOutcome,
}

/// What a DiscoSec association on the same link produced (seed 003,
/// 5.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiscosecOutcome {
    /// From the AP's first beacon (the medium's start) to the station's
    /// session key in use, ms: the station's ECDH, the management frames
    /// and the AP's ECDH.
    pub connected_ms: f64,
    /// The times on the channel (the exchange: station's Authentication
    /// to the AP's Association Response).
    pub channel: ChannelTimes,
    /// The ECDH the exchange computes, measured on this host with the same
    /// code after the medium stopped, ms: the station's key pair and
    /// agreement (before its Authentication frame) and the AP's agreement
    /// (between that frame and its answer). The live medium runs the
    /// DiscoSec cores inside its event loop without charging their
    /// processor time to virtual time, so the channel's exchange leaves
    /// this out.
    pub ecdh_ms: f64,
    /// Ping across the DiscoSec link.
    pub ping: Option<PingResult>,
    /// The medium's run.
    pub medium: BssOutcome,
}

/// The live WPA2-Enterprise lab.
pub struct EnterpriseLab {
    bss: LiveBss,
    enterprise: EnterpriseConfig,
    pki: Pki,
    freeradius: ProcId,
    leap: Option<LeapRadiusServer>,
}

impl std::fmt::Debug for EnterpriseLab {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnterpriseLab")
            .field("bss", &self.bss)
            .finish_non_exhaustive()
    }
}

impl EnterpriseLab {
    /// Checks the programs, creates the BSS (namespaces `sta1`, `ap`,
    /// `server`, `radius`), the PKI, FreeRADIUS's configuration, and starts
    /// FreeRADIUS and the LEAP server; logs and configurations in
    /// `run_dir`. A server that does not start is an error naming it and
    /// quoting its log; whatever was created is removed.
    pub fn create(
        run_dir: Option<&Path>,
        interrupt: Option<Arc<AtomicBool>>,
    ) -> Result<EnterpriseLab> {
        sys::require_privileges()?;
        sys::require_programs(PROGRAMS)?;
        let mut cfg = BssConfig::new(Security::Ccmp128, 2.0, 1)?;
        cfg.hosts.push(HostDef {
            name: "radius".into(),
            mac: host_mac(1),
            ip: RADIUS_IP,
        });
        let enterprise = EnterpriseConfig::new(
            SocketAddrV4::new(RADIUS_IP, wisec_wire::radius::AUTH_PORT),
            SHARED_SECRET,
        );
        cfg.enterprise = Some(enterprise.clone());
        let mut bss = LiveBss::create(cfg, run_dir)?;
        if let Some(f) = interrupt {
            bss.net_mut().set_interrupt(f);
        }
        let dir = bss.net().run_dir().to_path_buf();
        let pki = radius::make_pki(&dir.join("pki"))?;
        let ns = bss
            .netns("radius")
            .cloned()
            .ok_or_else(|| LiveError::Config("no RADIUS namespace".into()))?;
        let users = vec![(USER.to_string(), PASSWORD.to_string())];
        let fr = FreeRadiusConfig {
            dir: dir.join("raddb"),
            listen: SocketAddrV4::new(RADIUS_IP, wisec_wire::radius::AUTH_PORT),
            client: bss.config().ap_ip,
            secret: SHARED_SECRET.into(),
            users: users.clone(),
            pki: pki.clone(),
        };
        let freeradius = radius::start_freeradius(bss.net_mut(), &ns, &fr)?;
        let leap = LeapRadiusServer::start(
            &ns,
            SocketAddrV4::new(RADIUS_IP, LEAP_PORT),
            SHARED_SECRET,
            &users,
            Some(dir.join("leap-server.log")),
        )?;
        Ok(EnterpriseLab {
            bss,
            enterprise,
            pki,
            freeradius,
            leap: Some(leap),
        })
    }

    /// The BSS.
    pub fn bss(&self) -> &LiveBss {
        &self.bss
    }

    /// The BSS, to start programs in it.
    pub fn bss_mut(&mut self) -> &mut LiveBss {
        &mut self.bss
    }

    /// The run's PKI.
    pub fn pki(&self) -> &Pki {
        &self.pki
    }

    /// The LEAP server.
    pub fn leap_server(&self) -> Option<&LeapRadiusServer> {
        self.leap.as_ref()
    }

    /// Stops FreeRADIUS (to see what a run does without its server).
    pub fn stop_freeradius(&mut self) {
        let id = self.freeradius;
        self.bss.net_mut().stop(id);
    }

    /// Runs one association of `t`; the capture of its channel goes to
    /// `capture`. A failed authentication (Access-Reject: wrong password,
    /// expired certificate) is an `Ok` outcome with
    /// [`AuthResult::Failed`]; a RADIUS server that does not answer, or a
    /// station that never authenticates, is an error.
    pub fn trial(
        &mut self,
        t: &AuthTrial,
        cal: &Calibration,
        capture: &Path,
    ) -> Result<AuthOutcome> {
        let rate = Rate::from_mbps(t.mbps)
            .ok_or_else(|| LiveError::Config(format!("no 802.11a/b/g rate of {} Mb/s", t.mbps)))?;
        if !(0.0..1.0).contains(&t.loss) {
            return Err(LiveError::Config(format!("loss {} is not 0 to 1", t.loss)));
        }
        let server = radius_server_for(t);
        let port = server.port();
        let mut e = self.enterprise.clone();
        e.server = server;
        e.server_timeout_ms = t.radius_timeout_ms;
        e.server_tries = t.radius_tries;
        self.link(t.security, rate, t.loss, t.seed, Some(e))?;
        let password = if t.credentials == Credentials::WrongPassword {
            "not the password"
        } else {
            PASSWORD
        };
        let cert = if t.credentials == Credentials::ExpiredCertificate {
            self.pki.client_expired_cert.clone()
        } else {
            self.pki.client_cert.clone()
        };
        let peer = PeerConfig::new(t.method, password, &self.pki, &cert);
        let sta = self
            .bss
            .netns("sta1")
            .cloned()
            .ok_or_else(|| LiveError::Config("no station namespace".into()))?;
        let supp = Supplicant::start(self.bss.net_mut(), &sta, &peer, "sta1-wpa_supplicant")?;
        if let Err(e) = self.bss.start(cal, Some(capture)) {
            supp.stop(self.bss.net_mut());
            return Err(e);
        }
        let measured = self.associate(t, &supp);
        // The last frames (EAP-Failure, the last echo reply) cross before
        // the medium stops.
        std::thread::sleep(Duration::from_millis(100));
        let medium = self.bss.stop();
        let peer_log = supp.stop(self.bss.net_mut());
        let (ping, status) = measured?;
        let medium = medium?;
        let mpdus = crate::pcap::read_mpdus(capture)
            .map_err(|e| LiveError::io(format!("reading {}", capture.display()), e))?;
        let channel = ChannelTimes::from_capture(&mpdus);
        let record = medium.dot1x.first().cloned();
        let station_msk = medium
            .station_msk
            .first()
            .cloned()
            .flatten()
            .map(|(h, _)| h);
        let mut where_ = self.radius_log(port);
        if let Some(e) = &medium.medium.endpoint_error {
            where_ = format!("{e}; {where_}");
        }
        let result = classify(t, &status, record.as_ref(), &peer_log, where_)?;
        let connected_ms = status
            .connected_s
            .first()
            .copied()
            .flatten()
            .map(|s| s * 1e3);
        Ok(AuthOutcome {
            connected_ms,
            result,
            ap_msk: record.as_ref().and_then(|r| r.msk_hex.clone()),
            record,
            channel,
            station_msk,
            ping,
            medium,
        })
    }

    /// Sets the link for the next medium run, and forgets the neighbours
    /// (every trial starts from nothing learnt).
    fn link(
        &mut self,
        security: Security,
        rate: Rate,
        loss: f64,
        seed: u64,
        enterprise: Option<EnterpriseConfig>,
    ) -> Result<()> {
        self.bss.reconfigure(|c| {
            c.security = security;
            c.phy = if rate.is_ofdm() {
                PhyProfile::g()
            } else {
                PhyProfile::b()
            };
            c.rate = rate;
            c.seed = seed;
            c.loss = if loss > 0.0 {
                vec![
                    ("sta1".into(), crate::live::bss::AP_NAME.into(), loss),
                    (crate::live::bss::AP_NAME.into(), "sta1".into(), loss),
                ]
            } else {
                Vec::new()
            };
            c.enterprise = enterprise;
        })?;
        for n in ["sta1", "server"] {
            if let Some(ns) = self.bss.netns(n).cloned() {
                self.bss.net().ip_in(&ns, &["neigh", "flush", "all"])?;
            }
        }
        Ok(())
    }

    /// A DiscoSec (fast_auth) association on the same link, for seed
    /// 003's comparison of its key exchange with 802.11i's: from the
    /// AP's first beacon to the station's session key, then ping.
    pub fn discosec_trial(
        &mut self,
        mbps: f64,
        loss: f64,
        seed: u64,
        ping_count: u32,
        cal: &Calibration,
        capture: &Path,
    ) -> Result<DiscosecOutcome> {
        let rate = Rate::from_mbps(mbps)
            .ok_or_else(|| LiveError::Config(format!("no 802.11a/b/g rate of {mbps} Mb/s")))?;
        self.link(Security::DiscosecFast, rate, loss, seed, None)?;
        self.bss.start(cal, Some(capture))?;
        let measured = self
            .bss
            .wait_connected(Duration::from_secs(20))
            .and_then(|st| Ok((st, self.ping(ping_count)?)));
        std::thread::sleep(Duration::from_millis(100));
        let medium = self.bss.stop();
        let (st, ping) = measured?;
        let mpdus = crate::pcap::read_mpdus(capture)
            .map_err(|e| LiveError::io(format!("reading {}", capture.display()), e))?;
        Ok(DiscosecOutcome {
            connected_ms: st.connected_s.first().copied().flatten().unwrap_or(0.0) * 1e3,
            channel: ChannelTimes::from_capture(&mpdus),
            ecdh_ms: discosec_ecdh_ms(seed),
            ping,
            medium: medium?,
        })
    }

    /// Where the RADIUS server of `port` logs.
    fn radius_log(&self, port: u16) -> String {
        if port == LEAP_PORT {
            "the LEAP server's log (leap-server.log)".into()
        } else {
            self.bss
                .net()
                .log_path(self.freeradius)
                .map_or_else(|| "freeradius.log".into(), |p| p.display().to_string())
        }
    }

    /// Waits for the authentication and pings across the link.
    fn associate(
        &mut self,
        t: &AuthTrial,
        supp: &Supplicant,
    ) -> Result<(Option<PingResult>, super::bss::BssStatus)> {
        supp.set_sink(self.bss.msk_sender(0)?);
        // Three full RADIUS give-ups' worth, and some.
        let wait = Duration::from_millis(t.radius_timeout_ms * u64::from(t.radius_tries) + 15_000);
        let st = self.bss.wait_authenticated(wait)?;
        let ping = if st.all_connected() {
            self.ping(t.ping_count)?
        } else {
            None
        };
        Ok((ping, st))
    }

    /// Seed 001's response time: `count` echo requests of 32 octets from
    /// the station to the wired server, 100 ms apart (`None` for none).
    fn ping(&mut self, count: u32) -> Result<Option<PingResult>> {
        if count == 0 {
            return Ok(None);
        }
        let sta = self
            .bss
            .netns("sta1")
            .cloned()
            .ok_or_else(|| LiveError::Config("no station namespace".into()))?;
        let server = self.bss.config().hosts[0].ip;
        tools::ping(
            self.bss.net_mut(),
            &sta,
            server,
            count,
            Duration::from_millis(100),
            32,
            "sta1-ping",
        )
        .map(Some)
    }

    /// Stops everything and removes what the lab created.
    pub fn close(mut self) -> super::net::CleanupReport {
        if let Some(l) = self.leap.take() {
            l.stop();
        }
        self.bss.close()
    }
}

/// The processor time of one DiscoSec key exchange's ECDH on this host
/// (P-256, DiscoSec's default curve): a station key pair, the station's
/// agreement and the AP's, each the median of 15 runs of wisec's own
/// DiscoSec key code, ms.
pub fn discosec_ecdh_ms(seed: u64) -> f64 {
    use wisec_proto::discosec::{Curve, KeyPair};
    let mut rng = crate::bss::LabRng::new(seed);
    let ap = KeyPair::generate(Curve::P256, &mut rng);
    let median = |f: &mut dyn FnMut()| {
        let mut v: Vec<f64> = (0..15)
            .map(|_| {
                let t = std::time::Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let mut sta = KeyPair::generate(Curve::P256, &mut rng);
    let keygen = median(&mut || sta = KeyPair::generate(Curve::P256, &mut rng));
    let agree = median(&mut || {
        let _ = std::hint::black_box(sta.agree(ap.public().as_bytes()));
    });
    keygen + 2.0 * agree
}

/// The RADIUS server a trial of `t` uses.
fn radius_server_for(t: &AuthTrial) -> SocketAddrV4 {
    let port = if t.method == EapMethod::Leap {
        LEAP_PORT
    } else {
        wisec_wire::radius::AUTH_PORT
    };
    SocketAddrV4::new(RADIUS_IP, port)
}

/// How a trial ended, from the AP's record and the station's state; an
/// error for what is not an authentication result.
fn classify(
    t: &AuthTrial,
    st: &super::bss::BssStatus,
    record: Option<&Dot1xRecord>,
    peer: &PeerLog,
    radius_log: String,
) -> Result<AuthResult> {
    let outcome = record.and_then(|r| r.outcome);
    match outcome {
        Some(Dot1xOutcome::Accepted) if st.all_connected() => Ok(AuthResult::Success),
        Some(Dot1xOutcome::AcceptedWithoutKeys) if !t.method.derives_keys() => {
            Ok(AuthResult::Success)
        }
        Some(Dot1xOutcome::Rejected) => {
            let mut why = format!("{} (Access-Reject)", t.method.label());
            if let Some(e) = &peer.tls_error {
                why.push_str(&format!("; wpa_supplicant: {e}"));
            }
            Ok(AuthResult::Failed(why))
        }
        Some(Dot1xOutcome::ServerTimeout) => Err(LiveError::Config(format!(
            "the RADIUS server at {} did not answer the AP's Access-Requests ({} tries, {} ms \
apart; a server with another shared secret also stays silent): {radius_log}",
            radius_server_for(t),
            t.radius_tries,
            t.radius_timeout_ms
        ))),
        Some(Dot1xOutcome::Accepted) => Err(LiveError::Config(format!(
            "{} succeeded but the 4-way handshake did not complete (station phase {:?}, the \
station's MSK {})",
            t.method.label(),
            st.phases.first().copied().flatten(),
            if peer.msk_hex.is_some() {
                "was read from wpa_supplicant's log"
            } else {
                "never appeared in wpa_supplicant's log"
            }
        ))),
        Some(o) => Ok(AuthResult::Failed(o.describe())),
        None => Err(LiveError::Config(format!(
            "the station did not authenticate (phase {:?}, no verdict from the RADIUS server)",
            st.phases.first().copied().flatten()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eap(t: u64, from_station: bool, code: EapCode, ty: Option<EapType>) -> EapolEvent {
        EapolEvent {
            t_ns: t * 1_000_000,
            from_station,
            kind: EapolKind::Eap { code, eap_type: ty },
        }
    }

    #[test]
    fn channel_times_run_from_the_first_eapol_frame() {
        let key = |t: u64, m: u8, s: bool| EapolEvent {
            t_ns: t * 1_000_000,
            from_station: s,
            kind: EapolKind::Key(m),
        };
        let ev = vec![
            eap(10, false, EapCode::Request, Some(EapType::IDENTITY)),
            eap(12, true, EapCode::Response, Some(EapType::IDENTITY)),
            eap(20, false, EapCode::Request, Some(EapType::LEAP)),
            eap(25, true, EapCode::Response, Some(EapType::LEAP)),
            eap(30, false, EapCode::Success, None),
            eap(32, true, EapCode::Request, Some(EapType::LEAP)),
            eap(40, false, EapCode::Response, Some(EapType::LEAP)),
            key(41, 1, false),
            key(43, 2, true),
            key(45, 3, false),
            key(47, 4, true),
        ];
        let c = ChannelTimes::from_events(&ev);
        // LEAP: the AP's last EAP packet is its response, at 40 ms.
        assert_eq!(c.eap_ms, Some(30.0));
        assert_eq!(c.from_identity_ms, Some(28.0));
        assert_eq!(c.to_msg4_ms, Some(37.0));
        assert_eq!(c.fourway_ms, Some(6.0));
        assert_eq!((c.eap_to_station, c.eap_from_station), (4, 3));
        assert!(c.eap_success && !c.eap_failure);

        let failed = vec![
            eap(1, false, EapCode::Request, Some(EapType::IDENTITY)),
            eap(2, true, EapCode::Response, Some(EapType::IDENTITY)),
            eap(3, false, EapCode::Failure, None),
        ];
        let c = ChannelTimes::from_events(&failed);
        assert!(c.eap_failure);
        assert_eq!((c.eap_ms, c.to_msg4_ms), (None, None));
        assert_eq!(ChannelTimes::from_events(&[]), ChannelTimes::default());
    }

    #[test]
    fn key_messages_are_told_apart() {
        assert_eq!(key_message(KeyInfo(0x008a)), 1);
        assert_eq!(key_message(KeyInfo(0x010a)), 2);
        assert_eq!(key_message(KeyInfo(0x13ca)), 3);
        assert_eq!(key_message(KeyInfo(0x030a)), 4);
    }
}
