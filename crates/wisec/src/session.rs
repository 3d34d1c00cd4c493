//! A protected WPA2/WPA-Personal session capture for tests and the
//! decrypt benchmark: a beacon, the 4-way handshake of every station
//! (derived from a passphrase and SSID), then data frames protected with
//! each station's TK in both directions and group-addressed frames
//! protected with the GTK.
//!
//! The EAPOL-Key frames follow IEEE Std 802.11-2020, 12.7.6 (key
//! descriptor version 2, HMAC-SHA1-128, AES key wrap; with `tkip`, the WPA
//! element and version 1, HMAC-MD5, RC4). `wisec synth` is the general
//! generator; this one exists so the decrypt path can be exercised and
//! measured on its own.

use crate::capture::{CaptureWriter, Format, Interface, Packet, Record};
use std::io::{self, Write};
use wisec_crypto::eapol_mic::{self, MicAlgorithm};
use wisec_crypto::kdf;
use wisec_crypto::keywrap;
use wisec_crypto::ptk::Ptk;
use wisec_crypto::suite::{DataKey, Suite};
use wisec_crypto::FrameProtector;
use wisec_wire::eapol::{KeyDescriptor, KeyFrameRepr, KeyInfo};
use wisec_wire::element::{Akm, CipherSuite};
use wisec_wire::llc::EtherType;
use wisec_wire::{Addressing, DataFrameRepr, MacAddr};

/// The access point of the session.
pub const AP: MacAddr = MacAddr([0x02, 0x00, 0x00, 0x00, 0x0a, 0x00]);
/// The GTK of the session (Key ID 1).
pub const GTK: [u8; 32] = [0x6b; 32];

/// What a session looks like.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    /// The passphrase.
    pub passphrase: String,
    /// The SSID.
    pub ssid: String,
    /// Number of stations.
    pub stations: usize,
    /// Protected unicast data frames (spread over stations and directions).
    pub data_frames: usize,
    /// Protected group-addressed frames from the AP.
    pub group_frames: usize,
    /// Bytes of MSDU payload after LLC/SNAP.
    pub payload_len: usize,
    /// WPA with TKIP instead of RSN with CCMP-128.
    pub tkip: bool,
    /// pcap (airdecap-ng reads only pcap) or pcapng.
    pub format: Format,
}

impl Default for SessionOptions {
    fn default() -> SessionOptions {
        SessionOptions {
            passphrase: "wisec session passphrase".to_string(),
            ssid: "wisec-session".to_string(),
            stations: 2,
            data_frames: 40,
            group_frames: 4,
            payload_len: 100,
            tkip: false,
            format: Format::Pcap,
        }
    }
}

/// The station MAC address of station `i`.
pub fn station(i: usize) -> MacAddr {
    MacAddr([0x02, 0x00, 0x00, 0x01, (i >> 8) as u8, i as u8])
}

/// The payload of data frame `n`: its number, then a fill pattern.
pub fn payload(n: usize, len: usize) -> Vec<u8> {
    let mut p = format!("wisec frame {n:09} ").into_bytes();
    p.resize(len.max(p.len()), (n % 251) as u8);
    p
}

fn element(id: u8, data: &[u8]) -> Vec<u8> {
    let mut v = vec![id, data.len() as u8];
    v.extend_from_slice(data);
    v
}

fn security_element(tkip: bool) -> Vec<u8> {
    if tkip {
        // WPA element: 00-50-F2 type 1, version 1, TKIP group and
        // pairwise, PSK AKM.
        element(
            221,
            &[
                0x00, 0x50, 0xf2, 1, 1, 0, 0x00, 0x50, 0xf2, 2, 1, 0, 0x00, 0x50, 0xf2, 2, 1, 0,
                0x00, 0x50, 0xf2, 2,
            ],
        )
    } else {
        // RSNE: CCMP-128 group and pairwise, PSK, no capabilities set.
        element(
            48,
            &[
                1, 0, 0x00, 0x0f, 0xac, 4, 1, 0, 0x00, 0x0f, 0xac, 4, 1, 0, 0x00, 0x0f, 0xac, 2, 0,
                0,
            ],
        )
    }
}

fn data_mpdu(addr: Addressing, seq: u16, ethertype: EtherType, payload: &[u8]) -> Vec<u8> {
    let r = DataFrameRepr::msdu(addr.header(None, seq << 4), ethertype, payload);
    let mut buf = vec![0u8; r.buffer_len().unwrap_or(0)];
    let n = r.emit(&mut buf).unwrap_or(0);
    buf.truncate(n);
    buf
}

struct Station {
    addr: MacAddr,
    key: DataKey,
    pn: u64,
}

/// The MPDUs of a session and, for each, its plaintext when protected.
pub type Session = (Vec<Vec<u8>>, Vec<Option<Vec<u8>>>);

/// Builds the session's MPDUs (without FCS) in capture order, and the
/// plaintext MPDU of every protected frame (indexed like the first list;
/// `None` for frames that are not protected).
pub fn build(opts: &SessionOptions) -> io::Result<Session> {
    let bad = |m: &str| io::Error::new(io::ErrorKind::InvalidInput, m.to_string());
    let pmk = kdf::psk(opts.passphrase.as_bytes(), opts.ssid.as_bytes())
        .map_err(|e| bad(&e.to_string()))?;
    let (akm, cipher, suite, version, mic) = if opts.tkip {
        (
            Akm::WPA_PSK,
            CipherSuite::WPA_TKIP,
            Suite::Tkip,
            1u16,
            MicAlgorithm::HmacMd5,
        )
    } else {
        (
            Akm::PSK,
            CipherSuite::CCMP_128,
            Suite::Ccmp128,
            2u16,
            MicAlgorithm::HmacSha1_128,
        )
    };
    let gtk = &GTK[..suite.key_len()];
    let mut frames = Vec::new();
    let mut plain = Vec::new();
    let mut seq = 0u16;
    let mut next = || {
        seq = seq.wrapping_add(1) & 0x0fff;
        seq
    };
    // Beacon with SSID and RSNE/WPA element.
    let mut beacon = vec![0x80, 0x00, 0, 0];
    beacon.extend_from_slice(&[0xff; 6]);
    beacon.extend_from_slice(&AP.0);
    beacon.extend_from_slice(&AP.0);
    beacon.extend_from_slice(&(next() << 4).to_le_bytes());
    beacon.extend_from_slice(&[0; 8]);
    beacon.extend_from_slice(&[0x64, 0x00, 0x11, 0x04]);
    beacon.extend(element(0, opts.ssid.as_bytes()));
    beacon.extend(security_element(opts.tkip));
    frames.push(beacon);
    plain.push(None);

    let ie = security_element(opts.tkip);
    let mut stations = Vec::new();
    for i in 0..opts.stations {
        let sta = station(i);
        let mut anonce = [0u8; 32];
        let mut snonce = [0u8; 32];
        for (j, (a, s)) in anonce.iter_mut().zip(snonce.iter_mut()).enumerate() {
            *a = (0x11u8).wrapping_mul(j as u8 + 1) ^ i as u8;
            *s = (0x3du8).wrapping_mul(j as u8 + 3) ^ (i >> 8) as u8;
        }
        let ptk = Ptk::derive(akm, cipher, pmk.as_bytes(), AP, sta, &anonce, &snonce)
            .map_err(|e| bad(&e.to_string()))?;
        let desc = if opts.tkip {
            KeyDescriptor::Wpa
        } else {
            KeyDescriptor::Rsn
        };
        let key_len: u16 = if opts.tkip { 32 } else { 16 };
        let eapol = |ki: KeyInfo, rc: u64, nonce: [u8; 32], kd: &[u8], klen: u16| -> Vec<u8> {
            let zero = [0u8; 16];
            let r = KeyFrameRepr {
                eapol_version: if opts.tkip { 1 } else { 2 },
                descriptor_type: desc,
                key_info: KeyInfo(ki.0 | version),
                key_length: klen,
                replay_counter: rc,
                key_nonce: nonce,
                key_iv: [0; 16],
                key_rsc: [0; 8],
                reserved: [0; 8],
                mic: &zero,
                key_data: kd,
            };
            let mut b = vec![0u8; r.buffer_len()];
            let _ = r.emit(&mut b);
            if ki.key_mic() {
                let _ = eapol_mic::sign_pdu(mic, ptk.kck(), &mut b);
            }
            b
        };
        let down = Addressing::FromAp {
            da: sta,
            bssid: AP,
            sa: AP,
        };
        let up = Addressing::ToAp {
            bssid: AP,
            sa: sta,
            da: AP,
        };
        let pw = KeyInfo(0).with_pairwise(true);
        let m1 = eapol(pw.with_key_ack(true), 1, anonce, &[], key_len);
        let m2 = eapol(pw.with_key_mic(true), 1, snonce, &ie, 0);
        let m3 = if opts.tkip {
            let ki = pw.with_install(true).with_key_ack(true).with_key_mic(true);
            eapol(ki, 2, anonce, &ie, key_len)
        } else {
            // RSNE and GTK KDE (Key ID 1), padded and wrapped with the KEK.
            let mut kd = ie.clone();
            kd.extend_from_slice(&[0xdd, 22, 0x00, 0x0f, 0xac, 1, 1, 0]);
            kd.extend_from_slice(gtk);
            let n = kd.len();
            kd.resize(keywrap::padded_len(n), 0);
            let p = keywrap::pad_key_data(&mut kd, n).map_err(|e| bad(&e.to_string()))?;
            let mut wrapped = vec![0u8; p + 8];
            keywrap::wrap_key_data(ptk.kek(), &kd[..p], &mut wrapped)
                .map_err(|e| bad(&e.to_string()))?;
            let ki = pw
                .with_install(true)
                .with_key_ack(true)
                .with_key_mic(true)
                .with_secure(true)
                .with_encrypted_key_data(true);
            eapol(ki, 2, anonce, &wrapped, key_len)
        };
        let m4 = eapol(
            pw.with_key_mic(true).with_secure(!opts.tkip),
            2,
            [0; 32],
            &[],
            0,
        );
        for (addr, pdu) in [(down, m1), (up, m2), (down, m3), (up, m4)] {
            frames.push(data_mpdu(addr, next(), EtherType::EAPOL, &pdu));
            plain.push(None);
        }
        if opts.tkip {
            // WPA group key handshake: the GTK in RC4-encrypted Key Data.
            let mut kd = gtk.to_vec();
            keywrap::danger_rc4_key_data(ptk.kek(), &[0; 16], &mut kd)
                .map_err(|e| bad(&e.to_string()))?;
            let ki = KeyInfo((1 << 4) | KeyInfo::KEY_ACK | KeyInfo::KEY_MIC | KeyInfo::SECURE);
            let g1 = eapol(ki, 3, [0; 32], &kd, 32);
            let g2 = eapol(
                KeyInfo(KeyInfo::KEY_MIC | KeyInfo::SECURE),
                3,
                [0; 32],
                &[],
                0,
            );
            let g1 = data_mpdu(down, next(), EtherType::EAPOL, &g1);
            let g2 = data_mpdu(up, next(), EtherType::EAPOL, &g2);
            // The group handshake runs under the new PTK (12.7.7).
            let key = DataKey::new(suite, ptk.tk()).map_err(|e| bad(&e.to_string()))?;
            for (k, f) in [(1u64, g1), (2, g2)] {
                let mut b = vec![0u8; f.len() + 32];
                let n = key
                    .protect(&f, k, 0, &mut b)
                    .map_err(|e| bad(&e.to_string()))?;
                b.truncate(n);
                frames.push(b);
                plain.push(Some(f));
            }
            let key = DataKey::new(suite, ptk.tk()).map_err(|e| bad(&e.to_string()))?;
            stations.push(Station {
                addr: sta,
                key,
                pn: 3,
            });
            continue;
        }
        let key = DataKey::new(suite, ptk.tk()).map_err(|e| bad(&e.to_string()))?;
        stations.push(Station {
            addr: sta,
            key,
            pn: 1,
        });
    }
    let gkey = DataKey::new(suite, gtk).map_err(|e| bad(&e.to_string()))?;
    let mut gpn = 1u64;
    let groups_every = opts
        .data_frames
        .checked_div(opts.group_frames)
        .map_or(usize::MAX, |n| n.max(1));
    let mut buf = vec![0u8; opts.payload_len + 200];
    let mut groups_left = opts.group_frames;
    for n in 0..opts.data_frames {
        if stations.is_empty() {
            break;
        }
        let idx = (n / 2) % stations.len();
        let st = &mut stations[idx];
        let addr = if n % 2 == 0 {
            Addressing::FromAp {
                da: st.addr,
                bssid: AP,
                sa: AP,
            }
        } else {
            Addressing::ToAp {
                bssid: AP,
                sa: st.addr,
                da: AP,
            }
        };
        let f = data_mpdu(addr, next(), EtherType::IPV4, &payload(n, opts.payload_len));
        let m = st
            .key
            .protect(&f, st.pn, 0, &mut buf)
            .map_err(|e| bad(&e.to_string()))?;
        st.pn += 1;
        frames.push(buf[..m].to_vec());
        plain.push(Some(f));
        if groups_left > 0 && (n + 1) % groups_every == 0 {
            groups_left -= 1;
            let g = data_mpdu(
                Addressing::FromAp {
                    da: MacAddr([0xff; 6]),
                    bssid: AP,
                    sa: AP,
                },
                next(),
                EtherType::IPV4,
                &payload(1_000_000_000 + n, opts.payload_len),
            );
            let mut b = vec![0u8; g.len() + 32];
            let m = gkey
                .protect(&g, gpn, 1, &mut b)
                .map_err(|e| bad(&e.to_string()))?;
            gpn += 1;
            b.truncate(m);
            frames.push(b);
            plain.push(Some(g));
        }
    }
    Ok((frames, plain))
}

/// Writes MPDUs as a capture of link type 105 without FCS.
pub fn write_frames<W: Write>(out: W, format: Format, frames: &[Vec<u8>]) -> io::Result<W> {
    let mut w = CaptureWriter::new(out, format);
    w.write_record(&Record::Section)?;
    w.write_record(&Record::Interface(Interface::new(105, 65535)))?;
    for (i, f) in frames.iter().enumerate() {
        w.write_record(&Record::Packet(Packet {
            interface: 0,
            timestamp: 1_700_000_000_000_000 + 100 * i as u64,
            orig_len: f.len() as u32,
            data: f.clone(),
        }))?;
    }
    w.into_inner()
}
