//! Generic CCM against RFC 3610 section 8 (packet vectors 1-24), NIST SP
//! 800-38C Appendix C (examples 1-4), NIST CAVS AES-192/256 samples and
//! IEEE P1619.1 AES-256 vectors: `vectors/ccm_rfc3610_sp800_38c.json`.

use wisec_crypto::ccm::Ccm;
use wisec_crypto::Error;

fn load() -> Vec<serde_json::Value> {
    let path = format!(
        "{}/tests/vectors/ccm_rfc3610_sp800_38c.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["vectors"].as_array().unwrap().clone()
}

fn hx(v: &serde_json::Value, f: &str) -> Vec<u8> {
    hex::decode(v[f].as_str().unwrap()).unwrap()
}

struct Vector {
    name: String,
    key: Vec<u8>,
    nonce: Vec<u8>,
    aad: Vec<u8>,
    pt: Vec<u8>,
    ct: Vec<u8>,
    tag: Vec<u8>,
    tag_len: usize,
    l: usize,
}

fn vectors() -> Vec<Vector> {
    load()
        .iter()
        .map(|v| {
            let aad = match v.get("aad_pattern_len") {
                // SP 800-38C C.4: A is 2^16 bytes, byte i = i mod 256.
                Some(n) => (0..n.as_u64().unwrap()).map(|i| i as u8).collect(),
                None => hx(v, "aad"),
            };
            Vector {
                name: v["name"].as_str().unwrap().to_string(),
                key: hx(v, "key"),
                nonce: hx(v, "nonce"),
                aad,
                pt: hx(v, "plaintext"),
                ct: hx(v, "ciphertext"),
                tag: hx(v, "tag"),
                tag_len: v["tag_len"].as_u64().unwrap() as usize,
                l: v["l"].as_u64().unwrap() as usize,
            }
        })
        .collect()
}

#[test]
fn all_vectors_are_present() {
    let v = vectors();
    for i in 1..=24 {
        let name = format!("RFC 3610 Packet Vector #{i}");
        assert!(v.iter().any(|x| x.name == name), "{name}");
    }
    for i in 1..=4 {
        assert!(v
            .iter()
            .any(|x| x.name.starts_with(&format!("SP 800-38C C.{i}"))));
    }
    assert!(v.iter().any(|x| x.key.len() == 24));
    assert!(v.iter().any(|x| x.key.len() == 32));
    // Example 4 uses the 0xFF 0xFE long-AAD encoding.
    assert!(v.iter().any(|x| x.aad.len() >= 0xff00));
}

fn expect_reject(c: &Ccm, nonce: &[u8], aad: &[u8], ct: &[u8], tag: &[u8], what: &str) {
    let mut d = ct.to_vec();
    assert_eq!(
        c.decrypt_in_place_detached(nonce, aad, &mut d, tag),
        Err(Error::Integrity),
        "{what}"
    );
    assert!(d.iter().all(|&b| b == 0), "{what}: plaintext left behind");
    let mut d = ct.to_vec();
    assert_eq!(
        c.decrypt_in_place_detached_or_restore(nonce, aad, &mut d, tag),
        Err(Error::Integrity),
        "{what}"
    );
    assert_eq!(d, ct, "{what}: ciphertext not restored");
}

#[test]
fn encrypt_decrypt_and_reject_tampering() {
    for v in vectors() {
        let c = Ccm::new(&v.key, v.tag_len, v.l).unwrap();
        assert_eq!(c.nonce_len(), v.nonce.len(), "{}", v.name);

        let mut data = v.pt.clone();
        let mut tag = [0u8; 16];
        c.encrypt_in_place_detached(&v.nonce, &v.aad, &mut data, &mut tag)
            .unwrap();
        assert_eq!(
            hex::encode(&data),
            hex::encode(&v.ct),
            "{} ciphertext",
            v.name
        );
        assert_eq!(
            hex::encode(&tag[..v.tag_len]),
            hex::encode(&v.tag),
            "{} tag",
            v.name
        );

        let mut data = v.ct.clone();
        c.decrypt_in_place_detached(&v.nonce, &v.aad, &mut data, &v.tag)
            .unwrap();
        assert_eq!(data, v.pt, "{} plaintext", v.name);

        // One flipped byte anywhere is rejected.
        if !v.ct.is_empty() {
            let mut ct = v.ct.clone();
            ct[v.ct.len() / 2] ^= 0x01;
            expect_reject(&c, &v.nonce, &v.aad, &ct, &v.tag, &v.name);
        }
        let mut tag = v.tag.clone();
        tag[v.tag_len - 1] ^= 0x80;
        expect_reject(&c, &v.nonce, &v.aad, &v.ct, &tag, &v.name);
        if !v.aad.is_empty() {
            let mut aad = v.aad.clone();
            aad[0] ^= 0x01;
            expect_reject(&c, &v.nonce, &aad, &v.ct, &v.tag, &v.name);
            // A shorter AAD changes the length encoding.
            expect_reject(&c, &v.nonce, &v.aad[1..], &v.ct, &v.tag, &v.name);
        }
        let mut nonce = v.nonce.clone();
        *nonce.last_mut().unwrap() ^= 0x01;
        expect_reject(&c, &nonce, &v.aad, &v.ct, &v.tag, &v.name);
    }
}

#[test]
fn other_tag_lengths_of_the_same_key_disagree() {
    // The tag length enters B_0: a truncated tag from M = 16 is not the
    // tag for M = 8.
    let v = vectors()
        .into_iter()
        .find(|v| v.tag_len == 16 && !v.pt.is_empty())
        .unwrap();
    let c8 = Ccm::new(&v.key, 8, v.l).unwrap();
    let mut d = v.ct.clone();
    assert_eq!(
        c8.decrypt_in_place_detached(&v.nonce, &v.aad, &mut d, &v.tag[..8]),
        Err(Error::Integrity)
    );
}
