//! WEP, RC4 and CRC-32 against independent references: RFC 6229 (RC4),
//! the scapy WEP frame of ieee80211_vectors.json, the CRC-32 check value.

mod legacy_util;

use legacy_util::{hex, ieee, s, Rng};
use wisec_crypto::crc32::crc32;
use wisec_crypto::rc4::Rc4;
use wisec_crypto::wep::DangerWep;
use wisec_crypto::{Error, FrameProtector};

#[test]
fn rc4_rfc6229_all_keys_all_offsets() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/vectors/rfc6229_rc4.txt"
    ))
    .unwrap();
    let mut key: Option<Vec<u8>> = None;
    let mut stream = Vec::new();
    let mut checked = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let mut parts = line.split_whitespace();
        let (a, b) = (parts.next().unwrap(), parts.next().unwrap());
        if a == "key" {
            let k = hex(b);
            stream = vec![0u8; 4096 + 16];
            Rc4::new(&k).unwrap().apply_keystream(&mut stream);
            key = Some(k);
            continue;
        }
        let off: usize = a.parse().unwrap();
        assert!(key.is_some());
        assert_eq!(hex::encode(&stream[off..off + 16]), b, "offset {off}");
        // The same bytes after skipping, one byte at a time.
        let mut r = Rc4::new(key.as_ref().unwrap()).unwrap();
        r.skip(off);
        let mut block = [0u8; 16];
        r.apply_keystream(&mut block);
        assert_eq!(hex::encode(block), b);
        checked += 1;
    }
    // 14 keys (40..256 bits, two key families) x 18 offsets.
    assert_eq!(checked, 14 * 18);
}

#[test]
fn crc32_check_value() {
    assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
}

/// A WEP-protected data frame around the scapy body.
fn scapy_frame() -> Vec<u8> {
    let v = ieee();
    let body = hex(s(&v["wep_scapy"], "wep_body_iv_keyid_data_icv"));
    let mut f = vec![0x08, 0x41, 0, 0];
    f.extend_from_slice(&[0x00, 0x11, 0x22, 0x33, 0x44, 0x55]);
    f.extend_from_slice(&[0x00, 0x11, 0x22, 0x33, 0x44, 0x66]);
    f.extend_from_slice(&[0x00, 0x11, 0x22, 0x33, 0x44, 0x77]);
    f.extend_from_slice(&[0x00, 0x00]);
    f.extend_from_slice(&body);
    f
}

#[test]
fn wep_scapy_vector_decrypts_to_the_tcp_segment() {
    let v = ieee();
    let key = s(&v["wep_scapy"], "key_ascii").as_bytes().to_vec();
    let wep = DangerWep::new(&key).unwrap();
    let frame = scapy_frame();
    let mut buf = frame.clone();
    let u = wep.unprotect_in_place(&mut buf).unwrap();
    assert_eq!(u.pn(), 0);
    assert_eq!(u.key_id(), 0);
    assert_eq!(u.len(), frame.len() - 8);
    assert_eq!(buf[1] & 0x40, 0, "Protected Frame bit cleared");
    let body = &buf[24..u.len()];
    // LLC/SNAP for IPv4, then an IPv4 header (127.0.0.1 -> 127.0.0.1,
    // protocol TCP) and a TCP header with sequence number 12345678.
    assert_eq!(&body[..8], &[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00]);
    let ip = &body[8..];
    assert_eq!(ip[0] >> 4, 4);
    assert_eq!(ip[9], 6);
    assert_eq!(&ip[12..20], &[127, 0, 0, 1, 127, 0, 0, 1]);
    let tcp = &ip[usize::from(ip[0] & 0x0f) * 4..];
    assert_eq!(
        u32::from_be_bytes(tcp[4..8].try_into().unwrap()),
        12_345_678
    );

    // Re-protecting with the same IV gives the captured frame back.
    let mut again = vec![0u8; frame.len()];
    let n = wep.protect(&buf[..u.len()], 0, 0, &mut again).unwrap();
    assert_eq!(again[..n], frame[..]);

    // Flips: body, ICV, IV; and a wrong key.
    for pos in [30, frame.len() - 1, 24, 26] {
        let mut bad = frame.clone();
        bad[pos] ^= 0x04;
        let copy = bad.clone();
        assert_eq!(
            wep.unprotect_in_place(&mut bad),
            Err(Error::Integrity),
            "{pos}"
        );
        assert_eq!(bad, copy, "ciphertext restored");
    }
    let other = DangerWep::new(b"Foobr").unwrap();
    assert_eq!(
        other.unprotect_in_place(&mut frame.clone()),
        Err(Error::Integrity)
    );
}

#[test]
fn wep_detects_every_single_bit_flip_of_the_encrypted_part() {
    // CRC-32 detects every single-bit error, so a lone flip of the
    // encrypted body or ICV is always caught; so is an IV flip (another
    // RC4 key).
    let wep = DangerWep::new(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]).unwrap();
    // The scapy frame's header around our own body, under a WEP-104 key.
    let mut f = scapy_frame()[..24].to_vec();
    f[1] = 0x01;
    f.extend_from_slice(b"some payload bytes");
    let mut out = vec![0u8; f.len() + 8];
    let n = wep.protect(&f, 0x123456, 3, &mut out).unwrap();
    for byte in 24..n {
        if byte == 27 {
            continue; // Key ID octet: not authenticated, checked below
        }
        for bit in 0..8 {
            let mut bad = out[..n].to_vec();
            bad[byte] ^= 1 << bit;
            assert!(wep.unprotect_in_place(&mut bad).is_err(), "{byte}:{bit}");
        }
    }
    // The Key ID bits are not covered: the caller picks the key by them.
    let mut k = out[..n].to_vec();
    k[27] ^= 0x40;
    assert_eq!(wep.unprotect_in_place(&mut k).unwrap().key_id(), 2);
}

#[test]
fn wep_weakness_crc_is_linear() {
    // WEP's known weakness (Borisov, Goldberg, Wagner 2001): flipping
    // plaintext bits through the ciphertext and XORing the encrypted ICV
    // with CRC(delta) ^ CRC(zeros) yields a frame that verifies. The ICV
    // is not a MAC; this test documents that the forgery goes through.
    let wep = DangerWep::new(b"Fobar").unwrap();
    let mut f = vec![0x08, 0x01, 0, 0];
    f.extend_from_slice(&[2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 3, 0, 0]);
    f.extend_from_slice(b"PAY 100 EUR TO ALICE");
    let mut out = vec![0u8; f.len() + 8];
    let n = wep.protect(&f, 42, 0, &mut out).unwrap();
    let body_len = f.len() - 24;
    let mut delta = vec![0u8; body_len];
    delta[4] = b'1' ^ b'9'; // 100 -> 900
    let icv_delta = crc32(&delta) ^ crc32(&vec![0u8; body_len]);
    let mut forged = out[..n].to_vec();
    for (c, d) in forged[28..28 + body_len].iter_mut().zip(&delta) {
        *c ^= d;
    }
    for (c, d) in forged[n - 4..].iter_mut().zip(icv_delta.to_le_bytes()) {
        *c ^= d;
    }
    let u = wep.unprotect_in_place(&mut forged).unwrap();
    assert_eq!(&forged[24..u.len()], b"PAY 900 EUR TO ALICE");
}

#[test]
fn wep_random_input_never_panics() {
    let wep = DangerWep::new(b"Fobar").unwrap();
    let mut rng = Rng(0xfeed_beef_1234_5678);
    for i in 0..20_000 {
        let len = rng.below(64);
        let mut buf = vec![0u8; len];
        rng.fill(&mut buf);
        if i % 2 == 0 && len >= 2 {
            buf[1] |= 0x40;
            buf[0] &= 0xf3; // management or data
            if i % 4 == 0 {
                buf[0] |= 0x08;
            }
        }
        let _ = wep.unprotect_in_place(&mut buf.clone());
        let mut big = buf.clone();
        big.resize(len + 8, 0);
        let _ = wep.protect_in_place(&mut big, len, rng.next() & 0xff_ffff, 1);
    }
}
