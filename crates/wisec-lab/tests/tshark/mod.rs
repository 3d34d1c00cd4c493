//! tshark as the independent decryptor of the live lab's channel captures,
//! shared by the live tests.

use std::path::Path;
use std::process::Command;

/// tshark's decryption of `pcap` given one 802.11 key entry (`key`: its
/// `80211_keys` UAT fields, for example `"wpa-pwd","PASS:SSID"` or
/// `"msk","HEX"`): the protocols of every frame.
pub fn decrypted_protocols(pcap: &Path, key: &str) -> Vec<String> {
    let key = format!("uat:80211_keys:{key}");
    let out = Command::new("tshark")
        .args(["-n", "-r"])
        .arg(pcap)
        .args([
            "-o",
            "wlan.enable_decryption:TRUE",
            "-o",
            &key,
            "-T",
            "fields",
            "-e",
            "frame.protocols",
        ])
        .output()
        .expect("tshark runs (Debian package tshark)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}
