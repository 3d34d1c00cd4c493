//! Fast BSS transition (IEEE 802.11r) sessions for `wisec synth --akm
//! ft-psk|ft-8021x`: two APs of one mobility domain; every station makes
//! an FT initial mobility domain association with the first (12.7.1.7,
//! 13.4.2: the 4-way handshake under PMK-R1, message 2 and 3 naming the
//! PMKR1Name in the RSNE, the MDE and FTE in Key Data), sends data, then
//! roams over the air to the second (13.5.1, 13.8: FT authentication with
//! the nonces, reassociation with the FTE MIC under the new KCK and the
//! new AP's GTK wrapped in the response's FTE) and sends data there.
//!
//! Written from the standard's clauses frame by frame; the tracker of
//! `wisec-proto` has to follow it from the capture alone.

use super::{
    push_ipv4_udp, sta_ip, station_addr, FrameKind, Gen, SynthConfig, BSSID, SERVER, SERVER_IP,
};
use anyhow::{anyhow, bail};
use wisec_crypto::eapol_mic::{self, MicAlgorithm};
use wisec_crypto::ft::PmkR0;
use wisec_crypto::keywrap;
use wisec_crypto::ptk::Ptk;
use wisec_crypto::suite::{DataKey, Suite};
use wisec_proto::rsn::Random;
use wisec_wire::eapol::{KeyDescriptor, KeyFrameRepr, KeyInfo};
use wisec_wire::element::{Akm, CipherSuite};
use wisec_wire::MacAddr;
use zeroize::Zeroizing;

/// The second AP of an FT session (the first is [`BSSID`]).
pub const BSSID2: MacAddr = MacAddr([0x02, 0x57, 0x53, 0x00, 0x00, 0x02]);
/// The mobility domain.
const MDID: [u8; 2] = [0x57, 0x53];
/// The R0 key holder: one for the mobility domain.
const R0KH_ID: &[u8] = b"r0kh.wisec.example";
/// Key descriptor version 3: AES-128-CMAC MIC, AES key wrap (12.7.2).
const VERSION: u16 = 3;

fn element(out: &mut Vec<u8>, id: u8, data: &[u8]) {
    out.push(id);
    out.push(data.len() as u8);
    out.extend_from_slice(data);
}

/// RSNE body (9.4.2.24): version 1, CCMP-128 group and pairwise, the AKM,
/// capabilities 0, and a PMKID list of one name when given.
fn rsne(akm: Akm, pmkid: Option<&[u8; 16]>) -> Vec<u8> {
    let c = CipherSuite::CCMP_128;
    let mut r = vec![1, 0];
    r.extend_from_slice(&c.oui);
    r.push(c.suite_type);
    r.extend_from_slice(&[1, 0]);
    r.extend_from_slice(&c.oui);
    r.push(c.suite_type);
    r.extend_from_slice(&[1, 0]);
    r.extend_from_slice(&akm.oui);
    r.push(akm.suite_type);
    r.extend_from_slice(&[0, 0]);
    if let Some(id) = pmkid {
        r.extend_from_slice(&[1, 0]);
        r.extend_from_slice(id);
    }
    r
}

/// Mobility Domain element body (9.4.2.46): MDID, FT capability (over
/// the air only).
fn mde() -> [u8; 3] {
    [MDID[0], MDID[1], 0]
}

/// Fast BSS Transition element body (9.4.2.47) with a 16-octet MIC:
/// MIC Control (element count in its second octet), MIC, ANonce, SNonce,
/// then the R1KH-ID (1), GTK (2) and R0KH-ID (3) subelements.
fn fte(
    count: u8,
    mic: &[u8; 16],
    anonce: &[u8; 32],
    snonce: &[u8; 32],
    r1kh: Option<MacAddr>,
    gtk: Option<&[u8]>,
) -> Vec<u8> {
    let mut f = vec![0, count];
    f.extend_from_slice(mic);
    f.extend_from_slice(anonce);
    f.extend_from_slice(snonce);
    if let Some(r1) = r1kh {
        element(&mut f, 1, &r1.0);
    }
    if let Some(g) = gtk {
        element(&mut f, 2, g);
    }
    element(&mut f, 3, R0KH_ID);
    f
}

/// The FTE MIC (13.8.4): AES-128-CMAC with the KCK over STA address, AP
/// address, transaction sequence number, RSNE, MDE and the FTE with a
/// zero MIC; written into the FTE body.
fn sign_fte(kck: &[u8], sta: MacAddr, ap: MacAddr, seq: u8, rsne: &[u8], fte: &mut [u8]) {
    let mut buf = Vec::with_capacity(256);
    buf.extend_from_slice(&sta.0);
    buf.extend_from_slice(&ap.0);
    buf.push(seq);
    element(&mut buf, 48, rsne);
    element(&mut buf, 54, &mde());
    element(&mut buf, 55, fte);
    let mut mic = [0u8; 16];
    if eapol_mic::compute(MicAlgorithm::AesCmac128, kck, &buf, &mut mic).is_ok() {
        fte[2..18].copy_from_slice(&mic);
    }
}

/// One EAPOL-Key frame, signed with `kck` when it carries a MIC.
fn key_frame(ki: KeyInfo, rc: u64, nonce: &[u8; 32], data: &[u8], kck: &[u8]) -> Vec<u8> {
    let ki = KeyInfo(ki.0 | VERSION);
    let r = KeyFrameRepr {
        eapol_version: 2,
        descriptor_type: KeyDescriptor::Rsn,
        key_info: ki,
        key_length: if ki.key_ack() { 16 } else { 0 },
        replay_counter: rc,
        key_nonce: *nonce,
        key_iv: [0; 16],
        key_rsc: [0; 8],
        reserved: [0; 8],
        mic: &[0; 16],
        key_data: data,
    };
    let mut buf = vec![0u8; r.buffer_len()];
    if r.emit(&mut buf).is_ok() && ki.key_mic() {
        let _ = eapol_mic::sign_pdu(MicAlgorithm::AesCmac128, kck, &mut buf);
    }
    buf
}

/// Key Data wrapped with the KEK (12.7.2 with padding, AES key wrap).
fn wrap(kek: &[u8], plain: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut p = plain.to_vec();
    p.resize(keywrap::padded_len(plain.len()), 0);
    let n = keywrap::pad_key_data(&mut p, plain.len()).map_err(|e| anyhow!("key data: {e}"))?;
    let mut out = vec![0u8; n + 8];
    keywrap::wrap_key_data(kek, &p[..n], &mut out).map_err(|e| anyhow!("key wrap: {e}"))?;
    Ok(out)
}

/// An FT station and its keys with the AP it is associated to.
struct FtStation {
    addr: MacAddr,
    ap: MacAddr,
    ptk: Ptk,
    key: DataKey,
    pn_sta: u64,
    pn_ap: u64,
    seq: u16,
}

/// Beacons of both APs: SSID, rates, RSNE with the FT AKM, MDE.
fn beacons(g: &mut Gen<'_>, akm: Akm) -> anyhow::Result<()> {
    for ap in [BSSID, BSSID2] {
        let seq = Gen::seq(&mut g.ap_seq);
        let mut p = std::mem::take(&mut g.plain);
        Gen::header(&mut p, [0x80, 0], 0, MacAddr::BROADCAST, ap, ap, seq);
        p.extend_from_slice(&(g.now_us - super::START_US).to_le_bytes());
        p.extend_from_slice(&100u16.to_le_bytes());
        p.extend_from_slice(&0x0411u16.to_le_bytes());
        let ssid = g.cfg.ssid.clone();
        element(&mut p, 0, &ssid);
        element(&mut p, 1, &[0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24]);
        element(&mut p, 3, &[super::CHANNEL]);
        element(&mut p, 48, &rsne(akm, None));
        element(&mut p, 54, &mde());
        g.plain = p;
        g.emit_plain(FrameKind::Beacon, None)?;
    }
    Ok(())
}

/// A management frame between a station and `ap`.
fn mgmt(
    g: &mut Gen<'_>,
    subtype: u8,
    to_ap: bool,
    st: &mut FtStation,
    ap: MacAddr,
    body: &[u8],
    i: usize,
) -> anyhow::Result<()> {
    let mut p = std::mem::take(&mut g.plain);
    let fc = [subtype << 4, 0];
    if to_ap {
        let seq = Gen::seq(&mut st.seq);
        Gen::header(&mut p, fc, 314, ap, st.addr, ap, seq);
    } else {
        let seq = Gen::seq(&mut g.ap_seq);
        Gen::header(&mut p, fc, 314, st.addr, ap, ap, seq);
    }
    p.extend_from_slice(body);
    g.plain = p;
    let kind = if subtype == 11 {
        FrameKind::Authentication
    } else {
        FrameKind::Association
    };
    g.emit_plain(kind, Some(i))
}

/// A QoS data frame between the station and the server behind its AP.
fn data(
    g: &mut Gen<'_>,
    st: &mut FtStation,
    i: usize,
    uplink: bool,
    n: usize,
) -> anyhow::Result<()> {
    let text = super::payload_text(i, uplink, n);
    let mut p = std::mem::take(&mut g.plain);
    let (src, dst, pn) = if uplink {
        let seq = Gen::seq(&mut st.seq);
        Gen::header(&mut p, [0x88, 0x01], 44, st.ap, st.addr, SERVER, seq);
        st.pn_sta += 1;
        (sta_ip(i), SERVER_IP, st.pn_sta)
    } else {
        let seq = Gen::seq(&mut g.ap_seq);
        Gen::header(&mut p, [0x88, 0x02], 44, st.addr, st.ap, SERVER, seq);
        st.pn_ap += 1;
        (SERVER_IP, sta_ip(i), st.pn_ap)
    };
    p.extend_from_slice(&[0, 0]);
    push_ipv4_udp(&mut p, src, dst, n as u16, &text);
    g.plain = p;
    g.emit_protected(&st.key, pn, 0, FrameKind::Data, Some(i))
}

/// A group data frame from `ap` under its GTK.
fn group(g: &mut Gen<'_>, ap: MacAddr, key: &DataKey, pn: u64, n: usize) -> anyhow::Result<()> {
    let text = format!("wisec synth group {n:07} ");
    let mut p = std::mem::take(&mut g.plain);
    let seq = Gen::seq(&mut g.ap_seq);
    Gen::header(&mut p, [0x08, 0x02], 0, MacAddr::BROADCAST, ap, SERVER, seq);
    push_ipv4_udp(&mut p, SERVER_IP, [10, 255, 255, 255], n as u16, &text);
    g.plain = p;
    g.emit_protected(key, pn, 1, FrameKind::GroupData, None)
}

/// The XXKey of the session's AKM: the PSK for FT-PSK, the second 256
/// bits of the MSK for FT over 802.1X (12.7.1.7.3).
fn xxkey(cfg: &SynthConfig) -> anyhow::Result<Zeroizing<Vec<u8>>> {
    if cfg.akm.uses_passphrase() {
        let psk = wisec_crypto::kdf::psk(cfg.passphrase.as_bytes(), &cfg.ssid)
            .map_err(|e| anyhow!("--passphrase: {e}"))?;
        return Ok(Zeroizing::new(psk.as_bytes().to_vec()));
    }
    let msk = cfg
        .msk
        .as_ref()
        .ok_or_else(|| anyhow!("--msk is required for ft-8021x"))?;
    let x = msk
        .get(32..64)
        .ok_or_else(|| anyhow!("--msk: at least 64 octets"))?;
    Ok(Zeroizing::new(x.to_vec()))
}

/// Writes the FT session of `cfg` through `g`.
pub(super) fn run(g: &mut Gen<'_>) -> anyhow::Result<()> {
    let cfg = g.cfg.clone();
    if cfg.pmf || cfg.cipher != super::SynthCipher::Ccmp128 {
        bail!("FT sessions are written with CCMP-128 and without --pmf");
    }
    let akm = cfg.akm.akm();
    let xx = xxkey(&cfg)?;
    // The GTKs of the two APs, Key ID 1.
    let mut gtk1 = [0u8; 16];
    let mut gtk2 = [0u8; 16];
    g.rng.fill_bytes(&mut gtk1);
    g.rng.fill_bytes(&mut gtk2);
    let gk1 = DataKey::new(Suite::Ccmp128, &gtk1).map_err(|e| anyhow!("GTK: {e}"))?;
    let gk2 = DataKey::new(Suite::Ccmp128, &gtk2).map_err(|e| anyhow!("GTK: {e}"))?;
    let (mut gpn1, mut gpn2) = (0u64, 0u64);
    // Beacons are written here, not by the generator.
    g.next_beacon_us = u64::MAX;
    beacons(g, akm)?;
    let mut stations = Vec::new();
    for i in 0..cfg.stations {
        let addr = station_addr(i);
        let r0 = PmkR0::derive(akm, &xx, &cfg.ssid, MDID, R0KH_ID, addr)
            .map_err(|e| anyhow!("PMK-R0: {e}"))?;
        let r1 = r0.pmk_r1(BSSID, addr).map_err(|e| anyhow!("PMK-R1: {e}"))?;
        let mut anonce = [0u8; 32];
        let mut snonce = [0u8; 32];
        g.rng.fill_bytes(&mut anonce);
        g.rng.fill_bytes(&mut snonce);
        let (ptk, _) = r1
            .ptk(akm, CipherSuite::CCMP_128, &snonce, &anonce, BSSID, addr)
            .map_err(|e| anyhow!("PTK: {e}"))?;
        let key = DataKey::new(Suite::Ccmp128, ptk.tk()).map_err(|e| anyhow!("TK: {e}"))?;
        let mut st = FtStation {
            addr,
            ap: BSSID,
            ptk,
            key,
            pn_sta: 0,
            pn_ap: 0,
            seq: (i as u16).wrapping_mul(97) & 0x0fff,
        };
        // Open System authentication, then the association (13.4.2):
        // the request names the mobility domain, the response also the
        // key holders.
        for (to_ap, seq) in [(true, 1u16), (false, 2)] {
            let mut b = Vec::new();
            b.extend_from_slice(&0u16.to_le_bytes());
            b.extend_from_slice(&seq.to_le_bytes());
            b.extend_from_slice(&0u16.to_le_bytes());
            mgmt(g, 11, to_ap, &mut st, BSSID, &b, i)?;
        }
        let mut b = Vec::new();
        b.extend_from_slice(&0x0411u16.to_le_bytes());
        b.extend_from_slice(&10u16.to_le_bytes());
        element(&mut b, 0, &cfg.ssid);
        element(&mut b, 1, &[0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24]);
        element(&mut b, 48, &rsne(akm, None));
        element(&mut b, 54, &mde());
        mgmt(g, 0, true, &mut st, BSSID, &b, i)?;
        let mut b = Vec::new();
        b.extend_from_slice(&0x0411u16.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(&(((i + 1) as u16 & 0x07ff) | 0xc000).to_le_bytes());
        element(&mut b, 1, &[0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24]);
        element(&mut b, 54, &mde());
        let zero = [0u8; 32];
        element(
            &mut b,
            55,
            &fte(0, &[0; 16], &zero, &zero, Some(BSSID), None),
        );
        mgmt(g, 1, false, &mut st, BSSID, &b, i)?;
        // The 4-way handshake under PMK-R1 (12.7.6, 13.4.2).
        let kck = st.ptk.kck().to_vec();
        let name = *r1.name();
        let ki = KeyInfo(0).with_pairwise(true);
        let m1 = key_frame(ki.with_key_ack(true), 1, &anonce, &[], &kck);
        let mut kd = Vec::new();
        element(&mut kd, 48, &rsne(akm, Some(&name)));
        element(&mut kd, 54, &mde());
        element(
            &mut kd,
            55,
            &fte(0, &[0; 16], &anonce, &snonce, Some(BSSID), None),
        );
        let m2 = key_frame(ki.with_key_mic(true), 1, &snonce, &kd, &kck);
        let mut plain = Vec::new();
        element(&mut plain, 48, &rsne(akm, Some(&name)));
        let mut gkde = vec![0xdd, 6 + 16, 0x00, 0x0f, 0xac, 1, 1, 0];
        gkde.extend_from_slice(&gtk1);
        plain.extend_from_slice(&gkde);
        element(&mut plain, 54, &mde());
        element(
            &mut plain,
            55,
            &fte(0, &[0; 16], &anonce, &snonce, Some(BSSID), None),
        );
        let m3 = key_frame(
            ki.with_install(true)
                .with_key_ack(true)
                .with_key_mic(true)
                .with_secure(true)
                .with_encrypted_key_data(true),
            2,
            &anonce,
            &wrap(st.ptk.kek(), &plain)?,
            &kck,
        );
        let m4 = key_frame(ki.with_key_mic(true).with_secure(true), 2, &zero, &[], &kck);
        for (pdu, to_ap) in [(m1, false), (m2, true), (m3, false), (m4, true)] {
            let seq = if to_ap {
                Gen::seq(&mut st.seq)
            } else {
                Gen::seq(&mut g.ap_seq)
            };
            g.eapol_frame(&pdu, to_ap, addr, seq);
            g.emit_plain(FrameKind::Eapol, Some(i))?;
        }
        g.summary.stations += 1;
        stations.push((st, r0));
    }
    // Data with the first AP, the roams, data with the second.
    let half = cfg.frames / 2;
    let mut group_n = 0usize;
    for r in 0..cfg.frames {
        if r == half {
            beacons(g, akm)?;
            for (i, (st, r0)) in stations.iter_mut().enumerate() {
                roam(g, st, r0, i, akm, &gtk2)?;
            }
        }
        for (i, (st, _)) in stations.iter_mut().enumerate() {
            data(g, st, i, r % 2 == 1, r)?;
        }
        if r % 4 == 0 {
            if r < half {
                gpn1 += 1;
                group(g, BSSID, &gk1, gpn1, group_n)?;
            } else {
                gpn2 += 1;
                group(g, BSSID2, &gk2, gpn2, group_n)?;
            }
            group_n += 1;
        }
    }
    Ok(())
}

/// An FT over-the-air roam of `st` to [`BSSID2`] (13.5.1, 13.8).
fn roam(
    g: &mut Gen<'_>,
    st: &mut FtStation,
    r0: &PmkR0,
    i: usize,
    akm: Akm,
    gtk2: &[u8; 16],
) -> anyhow::Result<()> {
    let addr = st.addr;
    let mut anonce = [0u8; 32];
    let mut snonce = [0u8; 32];
    g.rng.fill_bytes(&mut anonce);
    g.rng.fill_bytes(&mut snonce);
    let r1 = r0
        .pmk_r1(BSSID2, addr)
        .map_err(|e| anyhow!("PMK-R1: {e}"))?;
    let r0name = *r0.name();
    let r1name = *r1.name();
    let zero = [0u8; 32];
    // FT authentication (algorithm 2): the request names PMKR0Name and
    // brings the SNonce, the response the ANonce and the key holders.
    for (to_ap, seq) in [(true, 1u16), (false, 2)] {
        let mut b = Vec::new();
        b.extend_from_slice(&2u16.to_le_bytes());
        b.extend_from_slice(&seq.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        element(&mut b, 48, &rsne(akm, Some(&r0name)));
        element(&mut b, 54, &mde());
        let f = if to_ap {
            fte(0, &[0; 16], &zero, &snonce, None, None)
        } else {
            fte(0, &[0; 16], &anonce, &snonce, Some(BSSID2), None)
        };
        element(&mut b, 55, &f);
        mgmt(g, 11, to_ap, st, BSSID2, &b, i)?;
    }
    let (ptk, _) = r1
        .ptk(akm, CipherSuite::CCMP_128, &snonce, &anonce, BSSID2, addr)
        .map_err(|e| anyhow!("PTK: {e}"))?;
    let kck = ptk.kck().to_vec();
    let rs = rsne(akm, Some(&r1name));
    // Reassociation Request: the FTE MIC with transaction sequence 5.
    let mut f = fte(3, &[0; 16], &anonce, &snonce, Some(BSSID2), None);
    sign_fte(&kck, addr, BSSID2, 5, &rs, &mut f);
    let mut b = Vec::new();
    b.extend_from_slice(&0x0411u16.to_le_bytes());
    b.extend_from_slice(&10u16.to_le_bytes());
    b.extend_from_slice(&BSSID.0);
    element(&mut b, 0, &g.cfg.ssid.clone());
    element(&mut b, 1, &[0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24]);
    element(&mut b, 48, &rs);
    element(&mut b, 54, &mde());
    element(&mut b, 55, &f);
    mgmt(g, 2, true, st, BSSID2, &b, i)?;
    // Reassociation Response: sequence 6, the GTK in the FTE (Key Info
    // with the Key ID, Key Length, RSC, the key wrapped with the KEK).
    let mut wrapped = [0u8; 24];
    keywrap::aes_wrap(ptk.kek(), gtk2, &mut wrapped).map_err(|e| anyhow!("GTK wrap: {e}"))?;
    let mut gsub = vec![1, 0, 16];
    gsub.extend_from_slice(&[0; 8]);
    gsub.extend_from_slice(&wrapped);
    let mut f = fte(3, &[0; 16], &anonce, &snonce, Some(BSSID2), Some(&gsub));
    sign_fte(&kck, addr, BSSID2, 6, &rs, &mut f);
    let mut b = Vec::new();
    b.extend_from_slice(&0x0411u16.to_le_bytes());
    b.extend_from_slice(&0u16.to_le_bytes());
    b.extend_from_slice(&(((i + 1) as u16 & 0x07ff) | 0xc000).to_le_bytes());
    element(&mut b, 1, &[0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24]);
    element(&mut b, 48, &rs);
    element(&mut b, 54, &mde());
    element(&mut b, 55, &f);
    mgmt(g, 3, false, st, BSSID2, &b, i)?;
    st.key = DataKey::new(Suite::Ccmp128, ptk.tk()).map_err(|e| anyhow!("TK: {e}"))?;
    st.ptk = ptk;
    st.ap = BSSID2;
    st.pn_sta = 0;
    st.pn_ap = 0;
    g.summary.ft_roams += 1;
    Ok(())
}
