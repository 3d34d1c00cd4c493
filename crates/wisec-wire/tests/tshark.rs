//! Cross-check against an independent dissector: frames built by this
//! crate are written to a pcap (radiotap link type) and decoded by tshark;
//! the fields tshark reads must be the ones the frames were built with.
//! Skipped (with a note) when tshark is not installed.

use std::process::Command;
use wisec_wire::element::{ElementWriter, List};
use wisec_wire::frame_control::mgmt_subtype;
use wisec_wire::*;

const AP: MacAddr = MacAddr([0x02, 0x00, 0x00, 0x00, 0x00, 0x01]);
const STA: MacAddr = MacAddr([0x02, 0x00, 0x00, 0x00, 0x00, 0x02]);

fn mgmt(subtype: u8, a1: MacAddr, a2: MacAddr, body: MgmtBody, variable: &[u8]) -> Vec<u8> {
    let r = MgmtFrameRepr {
        header: HeaderRepr {
            frame_control: FrameControl::new(FrameType::Management, subtype),
            duration: 0,
            addr1: a1,
            addr2: Some(a2),
            addr3: Some(AP),
            sequence_control: Some(0x10),
            addr4: None,
            qos_control: None,
            ht_control: None,
        },
        body,
        variable,
    };
    let mut b = vec![0u8; r.buffer_len().unwrap()];
    r.emit(&mut b).unwrap();
    b
}

fn radiotap(frame: &[u8]) -> Vec<u8> {
    let r = RadiotapRepr {
        flags: Some(RadiotapFlags(0)),
        rate: Some(12),
        channel: Some(RadiotapChannel {
            freq: 5180,
            flags: 0x0140,
        }),
        dbm_antenna_signal: Some(-42),
        tx_flags: None,
    };
    let mut b = vec![0u8; r.buffer_len()];
    r.emit(&mut b).unwrap();
    b.extend_from_slice(frame);
    b
}

fn pcap(frames: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&4u16.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&65535u32.to_le_bytes());
    out.extend_from_slice(&127u32.to_le_bytes()); // LINKTYPE_IEEE802_11_RADIOTAP
    for (i, f) in frames.iter().enumerate() {
        out.extend_from_slice(&(i as u32).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(f.len() as u32).to_le_bytes());
        out.extend_from_slice(&(f.len() as u32).to_le_bytes());
        out.extend_from_slice(f);
    }
    out
}

fn frames() -> Vec<Vec<u8>> {
    let mut frames = Vec::new();

    // 1. Beacon: SSID, rates, RSNE (WPA3 + FT, MFP required, PMKID, BIP-GMAC-256), WPA element.
    let pmkid = [Pmkid([0x11; 16])];
    let rsne = Rsne {
        group_data_cipher: Some(CipherSuite::CCMP_128),
        pairwise: Some(List::Items(&[CipherSuite::CCMP_128, CipherSuite::GCMP_256])),
        akms: Some(List::Items(&[Akm::SAE, Akm::FT_SAE])),
        capabilities: Some(
            RsnCapabilities::default()
                .with_mfpc(true)
                .with_mfpr(true)
                .with_ptksa_replay_counter(3)
                .with_gtksa_replay_counter(1)
                .with_extended_key_id(true),
        ),
        pmkids: Some(List::Items(&pmkid)),
        group_mgmt_cipher: Some(CipherSuite::BIP_GMAC_256),
        ..Rsne::default()
    };
    let wpa = WpaElement {
        version: 1,
        group_cipher: Some(CipherSuite::WPA_TKIP),
        pairwise: Some(List::Items(&[CipherSuite::WPA_CCMP])),
        akms: Some(List::Items(&[Akm::WPA_PSK])),
        capabilities: None,
    };
    let mut el = [0u8; 256];
    let mut w = ElementWriter::new(&mut el);
    w.push(ElementId::SSID, b"wisec-lab").unwrap();
    w.push(ElementId::SUPPORTED_RATES, &[0x8c, 0x12, 0x98, 0x24])
        .unwrap();
    w.push_with(|b| rsne.emit(b)).unwrap();
    w.push_with(|b| wpa.emit(b)).unwrap();
    let el = w.finish().to_vec();
    frames.push(mgmt(
        mgmt_subtype::BEACON,
        MacAddr::BROADCAST,
        AP,
        MgmtBody::Beacon(BeaconFields {
            timestamp: 123_456_789,
            beacon_interval: 100,
            capability: CapabilityInfo(CapabilityInfo::ESS | CapabilityInfo::PRIVACY),
        }),
        &el,
    ));

    // 2. Open System authentication, sequence 2, status 17.
    frames.push(mgmt(
        mgmt_subtype::AUTH,
        STA,
        AP,
        MgmtBody::Authentication {
            algorithm: AuthAlgorithm::OpenSystem,
            seq: 2,
            status: StatusCode::AP_UNABLE_TO_HANDLE_NEW_STA,
        },
        &[],
    ));
    let rates = [0x01, 0x02, 0x8c, 0x98];
    let ssid_rates = [0x00, 0x03, b'l', b'a', b'b', 0x01, 0x02, 0x8c, 0x98];

    // 3. Association response, AID 5.
    frames.push(mgmt(
        mgmt_subtype::ASSOC_RESP,
        STA,
        AP,
        MgmtBody::AssocResponse {
            capability: CapabilityInfo(CapabilityInfo::ESS),
            status: StatusCode(0),
            aid: 0xc005,
        },
        &rates,
    ));

    // 4. Reassociation request with listen interval 10.
    frames.push(mgmt(
        mgmt_subtype::REASSOC_REQ,
        AP,
        STA,
        MgmtBody::ReassocRequest {
            capability: CapabilityInfo(CapabilityInfo::ESS),
            listen_interval: 10,
            current_ap: MacAddr([0x02, 0, 0, 0, 0, 0x09]),
        },
        &ssid_rates,
    ));

    // 5. Broadcast deauthentication with an MME (Key ID 4, IPN 4).
    let mut mme = [0u8; 18];
    MmeRepr {
        key_id: 4,
        ipn: 4,
        mic: &[0x48, 0xdf, 0xbf, 0xa7, 0xb8, 0x27, 0x88, 0x72],
    }
    .emit(&mut mme)
    .unwrap();
    frames.push(mgmt(
        mgmt_subtype::DEAUTH,
        MacAddr::BROADCAST,
        AP,
        MgmtBody::Deauthentication {
            reason: ReasonCode::CLASS3_FRAME_FROM_NONASSOC_STA,
        },
        &mme,
    ));

    // 6. QoS data from the AP, TID 6, carrying EAPOL-Key message 3.
    let key = KeyFrameRepr {
        eapol_version: 2,
        descriptor_type: KeyDescriptor::Rsn,
        key_info: KeyInfo::default()
            .with_descriptor_version(KeyDescriptorVersion::HmacSha1Aes)
            .with_pairwise(true)
            .with_install(true)
            .with_key_ack(true)
            .with_key_mic(true)
            .with_secure(true)
            .with_encrypted_key_data(true),
        key_length: 16,
        replay_counter: 2,
        key_nonce: [0x5a; 32],
        key_iv: [0; 16],
        key_rsc: [0; 8],
        reserved: [0; 8],
        mic: &[0xa5; 16],
        key_data: &[0xee; 56],
    };
    let mut kb = vec![0u8; key.buffer_len()];
    key.emit(&mut kb).unwrap();
    let h = Addressing::FromAp {
        da: STA,
        bssid: AP,
        sa: AP,
    }
    .header(Some(6), 0x20);
    let d = DataFrameRepr::msdu(h, EtherType::EAPOL, &kb);
    let mut db = vec![0u8; d.buffer_len().unwrap()];
    d.emit(&mut db).unwrap();
    frames.push(db);

    frames.into_iter().map(|f| radiotap(&f)).collect()
}

const FIELDS: &[&str] = &[
    "radiotap.channel.freq",
    "radiotap.dbm_antsignal",
    "radiotap.datarate",
    "wlan.fc.type_subtype",
    "wlan.ssid",
    "wlan.fixed.beacon",
    "wlan.fixed.timestamp",
    "wlan.rsn.version",
    "wlan.rsn.gcs.type",
    "wlan.rsn.pcs.type",
    "wlan.rsn.akms.type",
    "wlan.rsn.capabilities.mfpr",
    "wlan.rsn.capabilities.mfpc",
    "wlan.rsn.capabilities.ptksa_replay_counter",
    "wlan.rsn.capabilities.gtksa_replay_counter",
    "wlan.rsn.capabilities.extended_key_id_iaf",
    "wlan.rsn.pmkid.count",
    "wlan.rsn.gmcs.type",
    "wlan.wfa.ie.wpa.mcs.type",
    "wlan.wfa.ie.wpa.ucs.type",
    "wlan.wfa.ie.wpa.type",
    "wlan.fixed.auth.alg",
    "wlan.fixed.auth_seq",
    "wlan.fixed.status_code",
    "wlan.fixed.aid",
    "wlan.fixed.listen_ival",
    "wlan.fixed.current_ap",
    "wlan.fixed.reason_code",
    "wlan.mmie.keyid",
    "wlan.mmie.ipn",
    "wlan.qos.tid",
    "llc.type",
    "eapol.version",
    "eapol.type",
    "eapol.len",
    "eapol.keydes.type",
    "wlan_rsna_eapol.keydes.key_info",
    "wlan_rsna_eapol.keydes.key_info.keydes_version",
    "wlan_rsna_eapol.keydes.key_info.install",
    "eapol.keydes.key_len",
    "eapol.keydes.replay_counter",
    "wlan_rsna_eapol.keydes.data_len",
    "_ws.expert",
];

#[test]
fn tshark_reads_what_we_built() {
    if Command::new("tshark").arg("--version").output().is_err() {
        eprintln!("tshark not installed: cross-check skipped");
        return;
    }
    let path = std::env::temp_dir().join(format!("wisec-wire-xcheck-{}.pcap", std::process::id()));
    std::fs::write(&path, pcap(&frames())).unwrap();
    let mut cmd = Command::new("tshark");
    cmd.arg("-r")
        .arg(&path)
        .args(["-T", "fields", "-E", "separator=|", "-E", "occurrence=a"]);
    for f in FIELDS {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().unwrap();
    if std::env::var_os("WISEC_KEEP_PCAP").is_none() {
        std::fs::remove_file(&path).ok();
    }
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('|').collect()).collect();
    assert_eq!(rows.len(), 6, "{text}");
    let get = |row: usize, name: &str| -> &str {
        let i = FIELDS.iter().position(|f| *f == name).unwrap();
        rows[row][i]
    };
    let expect: &[(usize, &str, &str)] = &[
        // Radiotap on every frame.
        (0, "radiotap.channel.freq", "5180"),
        (0, "radiotap.dbm_antsignal", "-42"),
        (0, "radiotap.datarate", "6"),
        // Beacon.
        (0, "wlan.fc.type_subtype", "0x0008"),
        (0, "wlan.ssid", "77697365632d6c6162"),
        (0, "wlan.fixed.beacon", "100"),
        (0, "wlan.fixed.timestamp", "123456789"),
        (0, "wlan.rsn.version", "1"),
        (0, "wlan.rsn.gcs.type", "4"),
        (0, "wlan.rsn.pcs.type", "4,9"),
        (0, "wlan.rsn.akms.type", "8,9"),
        (0, "wlan.rsn.capabilities.mfpr", "1"),
        (0, "wlan.rsn.capabilities.mfpc", "1"),
        (0, "wlan.rsn.capabilities.ptksa_replay_counter", "0x0003"),
        (0, "wlan.rsn.capabilities.gtksa_replay_counter", "0x0001"),
        (0, "wlan.rsn.capabilities.extended_key_id_iaf", "1"),
        (0, "wlan.rsn.pmkid.count", "1"),
        (0, "wlan.rsn.gmcs.type", "12"),
        (0, "wlan.wfa.ie.wpa.mcs.type", "2"),
        (0, "wlan.wfa.ie.wpa.ucs.type", "4"),
        (0, "wlan.wfa.ie.wpa.type", "2"),
        // Authentication.
        (1, "wlan.fc.type_subtype", "0x000b"),
        (1, "wlan.fixed.auth.alg", "0"),
        (1, "wlan.fixed.auth_seq", "0x0002"),
        (1, "wlan.fixed.status_code", "0x0011"),
        // Association response.
        (2, "wlan.fc.type_subtype", "0x0001"),
        (2, "wlan.fixed.status_code", "0x0000"),
        (2, "wlan.fixed.aid", "0x0005"),
        // Reassociation request.
        (3, "wlan.fc.type_subtype", "0x0002"),
        (3, "wlan.fixed.listen_ival", "0x000a"),
        (3, "wlan.fixed.current_ap", "02:00:00:00:00:09"),
        // Deauthentication + MME.
        (4, "wlan.fc.type_subtype", "0x000c"),
        (4, "wlan.fixed.reason_code", "0x0007"),
        (4, "wlan.mmie.keyid", "4"),
        (4, "wlan.mmie.ipn", "040000000000"),
        // QoS data with EAPOL-Key message 3.
        (5, "wlan.fc.type_subtype", "0x0028"),
        (5, "wlan.qos.tid", "6"),
        (5, "llc.type", "0x888e"),
        (5, "eapol.version", "2"),
        (5, "eapol.type", "3"),
        (5, "eapol.len", "151"),
        (5, "eapol.keydes.type", "2"),
        (5, "wlan_rsna_eapol.keydes.key_info", "0x13ca"),
        (5, "wlan_rsna_eapol.keydes.key_info.keydes_version", "2"),
        (5, "wlan_rsna_eapol.keydes.key_info.install", "1"),
        (5, "eapol.keydes.key_len", "16"),
        (5, "eapol.keydes.replay_counter", "2"),
        (5, "wlan_rsna_eapol.keydes.data_len", "56"),
    ];
    for &(row, name, want) in expect {
        assert_eq!(
            get(row, name),
            want,
            "frame {} field {name}\n{text}",
            row + 1
        );
    }
    // tshark found nothing malformed in any frame.
    for row in 0..rows.len() {
        assert_eq!(get(row, "_ws.expert"), "", "frame {}\n{text}", row + 1);
    }
}
